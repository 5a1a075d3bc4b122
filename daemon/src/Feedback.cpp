#include "cudaperf/daemon/Feedback.h"

#include "cudaperf/contracts/Utf8Text.h"

#include <boost/json.hpp>

#include <sstream>

namespace cudaperf {

namespace json = boost::json;

namespace {

std::string listOf(const std::vector<std::string> &names) {
  json::array list;
  for (const auto &name : names)
    list.push_back(json::value(name));
  return json::serialize(list);
}

// Hints where the static features say something a policy can act on.
void featureHints(std::ostringstream &text, const FeatureVector &features) {
  if (features.coal < 0.5)
    text << " Global memory accesses look poorly coalesced (coal " << features.coal
         << "): make neighbouring threads touch neighbouring addresses.";
  const std::size_t occ = *featureIndex("occ");
  if (features.occ < 0.5 && !features.isUnknown(occ)) // a block size chosen at run time is not blamed
    text << " The block size is outside 128..256 threads (occ " << features.occ << ").";
  if (features.div > 0.25)
    text << " Many branches diverge within a warp (div " << features.div << ").";
}

} // namespace

std::string feedbackText(const FeedbackInputs &in) {
  std::ostringstream text;
  const CorrectnessStage *correctness = in.verdict && in.verdict->correctness ? &*in.verdict->correctness : nullptr;
  const TimingStage *timing = in.verdict && in.verdict->timing ? &*in.verdict->timing : nullptr;
  if (in.status == "compile_error") {
    text << "The code did not compile. Compiler output (last lines):\n" << contracts::utf8Tail(in.compileLog, 2000);
  } else if (in.status == "rejected") {
    text << "The candidate was rejected: ";
    if (!in.forbidden.empty())
      text << "it uses symbols this task does not allow (" << listOf(in.forbidden) << "); write the kernel yourself.";
    else if (!in.error.empty())
      text << in.error << ".";
  } else if (in.status == "no_gpu") {
    text << "Compiled successfully, but this reward server has no GPU: correctness and speed were not checked "
            "(only the static features and the structural reward are available).";
  } else if (in.status == "wrong_answer" && correctness) {
    text << "Wrong answer: " << correctness->passed << " of " << correctness->total << " tests passed.";
    if (const auto &failure = correctness->firstFailure) {
      text << " First failure at sizes " << json::serialize(failure->sizes) << ": " << failure->reason << ".";
      if (failure->firstMismatches)
        text << " First mismatches (index, expected, actual): " << json::serialize(*failure->firstMismatches) << ".";
    }
  } else if (in.status == "timeout") {
    text << "The evaluation did not finish in time (" << in.error
         << "): look for a kernel or host loop that never ends.";
  } else if (in.status == "runtime_error") {
    text << "Runtime error: " << in.error << ".";
  } else if (in.status == "ok" && timing) {
    text << "Correct (" << (correctness ? correctness->passed : 0) << " tests). Median time " << timing->medianMs
         << " ms (CV " << timing->cv * 100 << "%)";
    if (in.speedup)
      text << ", speedup " << *in.speedup << "x against the " << in.baseline << " baseline";
    text << ".";
  } else if (!in.error.empty()) {
    text << in.status << ": " << in.error;
  }
  if (in.analysis && in.analysis->features)
    featureHints(text, *in.analysis->features);
  return text.str();
}

} // namespace cudaperf
