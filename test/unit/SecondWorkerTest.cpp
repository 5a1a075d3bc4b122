// The second worker's policy, on answers written out by hand.
#include "SecondWorker.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace json = boost::json;
using cudaperf::judge::deservesSecondWorker;
using cudaperf::judge::secondReplacesFirst;

namespace {

json::object answer(const char *text) { return json::parse(text).as_object(); }

} // namespace

TEST(SecondWorker, IsAskedAboutNoiseAndNotAboutCheatsFarPastALimit) {
  struct Case {
    const char *answer;
    bool asked;
  } cases[] = {
      {R"({"status":"ok","timing":{"worker_times":"believed","post_call_wait_median_ms":0.01,"unfinished_limit_ms":0.04}})",
       false},
      {R"({"status":"ok","timing":{"worker_times":"rejected"}})", true},
      // the H200's 11.9 % run: most calls charged unfinished work
      {R"({"status":"ok","timing":{"worker_times":"believed","post_call_wait_median_ms":0.13,"unfinished_limit_ms":0.037}})",
       true},
      {R"({"status":"rejected","rejected_by":"cpu_budget","rejected_ratio":1.01})", true},
      {R"({"status":"rejected","rejected_by":"cpu_budget","rejected_ratio":1.3})", true},
      {R"({"status":"rejected","rejected_by":"cpu_budget","rejected_ratio":1.31})", false}, // a host computation
      {R"({"status":"rejected","rejected_by":"gpu_share","rejected_ratio":0.35})", true},   // 1.7 % of 5 %
      {R"({"status":"rejected","rejected_by":"gpu_share","rejected_ratio":0.25})", true},
      {R"({"status":"rejected","rejected_by":"gpu_share","rejected_ratio":0.0})", false}, // CUPTI off
      {R"({"status":"rejected","rejected_by":"cpu_budget"})", false},                     // no ratio: not a near miss
      {R"({"status":"rejected","error":"tampered with the judge's channel"})", false},
      {R"({"status":"wrong_answer","timing":{"worker_times":"rejected"}})", false},
      {R"({"status":"timeout"})", false},
      {R"({"timing":{"worker_times":"rejected"}})", false},
  };
  for (const Case &c : cases)
    EXPECT_EQ(deservesSecondWorker(answer(c.answer)), c.asked) << c.answer;
}

TEST(SecondWorker, ARejectionStandsUnlessTheSecondIsOkOrWrongAndAnOkStandsAgainstNoise) {
  const json::object rejected = answer(R"({"status":"rejected","rejected_by":"cpu_budget","rejected_ratio":1.1})");
  const json::object ok = answer(R"({"status":"ok","timing":{"worker_times":"rejected"}})");
  struct Case {
    const json::object *first;
    const char *second;
    bool replaces;
  } cases[] = {
      {&rejected, R"({"status":"ok"})", true},
      {&rejected, R"({"status":"timeout"})", false}, // the candidate may not pick another verdict
      {&rejected, R"({"status":"runtime_error"})", false},
      // Seen on the H200: a canary overrun rejected for 1.16x its correctness CPU under
      // compile load; its outputs are what is wrong with it.
      {&rejected, R"({"status":"wrong_answer","error":"wrote outside the bounds of 'out'"})", true},
      {&rejected, R"({"status":"rejected","rejected_by":"cpu_budget","rejected_ratio":1.05})", false},
      {&ok, R"({"status":"ok"})", true},
      {&ok, R"({"status":"wrong_answer"})", true}, // verified calls failed: that is the verdict
      {&ok, R"({"status":"runtime_error"})", true},
      {&ok, R"({"status":"rejected","rejected_by":"gpu_share","rejected_ratio":0.4})", false}, // noise
      {&ok, R"({"status":"rejected","error":"busy between calls"})", true},
      {&ok, R"({"status":"harness_error"})", false}, // the machine's, never a verdict
      {&ok, R"({"status":"no_gpu"})", false},
      {&rejected, R"({"error":"no status at all"})", false},
  };
  for (const Case &c : cases)
    EXPECT_EQ(secondReplacesFirst(*c.first, answer(c.second)), c.replaces)
        << json::serialize(*c.first) << " then " << c.second;
}

// Two oks: a doubtful second (one that would itself deserve a second worker)
// replaces a doubtful first only when it is not slower; a clean second always.
TEST(SecondWorker, OfTwoDoubtfulOksTheFasterStands) {
  const json::object first = answer(
      R"({"status":"ok","timing":{"worker_times":"believed","median_ms":0.2644,"post_call_wait_median_ms":0.05,"unfinished_limit_ms":0.037}})");
  struct Case {
    const char *second;
    bool replaces;
  } cases[] = {
      // the H200's saxpy: the second worker's times rejected, its median 0.3465
      {R"({"status":"ok","timing":{"worker_times":"rejected","median_ms":0.3465}})", false},
      {R"({"status":"ok","timing":{"worker_times":"rejected","median_ms":0.2391}})", true},
      {R"({"status":"ok","timing":{"worker_times":"rejected","median_ms":0.2644}})", true}, // a tie: the second
      {R"({"status":"ok","timing":{"worker_times":"believed","median_ms":0.30,"post_call_wait_median_ms":0.2,"unfinished_limit_ms":0.04}})",
       false},
      // believed and nothing charged: the measurement the second worker was for, slower or not
      {R"({"status":"ok","timing":{"worker_times":"believed","median_ms":0.31,"post_call_wait_median_ms":0.01,"unfinished_limit_ms":0.04}})",
       true},
      {R"({"status":"ok","timing":{"worker_times":"rejected"}})", false}, // no median: never the faster
  };
  for (const Case &c : cases)
    EXPECT_EQ(secondReplacesFirst(first, answer(c.second)), c.replaces) << c.second;
  // A first without a median loses to any doubtful second that has one.
  EXPECT_TRUE(secondReplacesFirst(answer(R"({"status":"ok","timing":{"worker_times":"rejected"}})"),
                                  answer(R"({"status":"ok","timing":{"worker_times":"rejected","median_ms":0.5}})")));
}
