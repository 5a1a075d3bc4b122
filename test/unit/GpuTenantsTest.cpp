// The driver's account of who else computed on the judge's GPU: which
// samples may take a charge off a candidate, and which may not. The
// processes here are made up: a judge of pid 700 with a worker tree below
// it, a neighbour (a trainer generating) and the ways a candidate might try
// to pass its own work off as someone else's.
#include "GpuTenants.h"
#include "GpuContention.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <map>

namespace json = boost::json;
using namespace cudaperf::judge;

namespace {

constexpr pid_t kJudge = 700, kWorkerInit = 701, kWorker = 702, kTrainer = 300, kMps = 50;

// The machine as the judge sees it: alive processes and their names.
ProcessView machine(std::set<unsigned> contexts = {kJudge, kWorker, kTrainer}) {
  static const std::map<pid_t, std::string> names = {{kJudge, "cudaperf-judge"},
                                                     {kWorkerInit, "cudaperf-worker"},
                                                     {kWorker, "cudaperf-worker"},
                                                     {kTrainer, "cudaperf-train"},
                                                     {kMps, "nvidia-cuda-mps-server"}};
  ProcessView view;
  view.judge = kJudge;
  view.ours = {kJudge, kWorkerInit, kWorker};
  view.withContexts = std::move(contexts);
  view.liveProcess = [](pid_t pid) { return names.count(pid) > 0; };
  view.name = [](pid_t pid) {
    const auto found = names.find(pid);
    return found == names.end() ? std::string() : found->second;
  };
  return view;
}

UtilisationSample sample(unsigned pid, unsigned sm, unsigned mem = 0) {
  static unsigned long long clock = 1'700'000'000'000'000ull;
  return UtilisationSample{pid, clock += 166'000, sm, mem};
}

const json::array &busyOthers(const json::object &look) { return look.at("busy_others").as_array(); }

json::object okAnswer() {
  return json::object{{"status", "ok"},
                      {"timing", json::object{{"median_ms", 0.31}, {"timed_calls", 30}}},
                      {"sandbox", json::object{{"outcome", "retired"}}}};
}

json::object rejectedAnswer(const char *rule) {
  json::object answer = okAnswer();
  answer["status"] = "rejected";
  answer["rejected_by"] = rule;
  answer["error"] = "the GPU was busy with work the candidate left running between calls";
  return answer;
}

} // namespace

TEST(GpuTenants, ATrainerComputingBesideTheCandidateIsSeen) {
  const json::object look = readTenants(
      {sample(kWorker, 92), sample(kTrainer, 40, 12), sample(kTrainer, 71), sample(kTrainer, 0)}, machine());
  EXPECT_EQ(look.at("attribution").as_string(), "ours");
  ASSERT_EQ(busyOthers(look).size(), 1u);
  const json::object &trainer = busyOthers(look)[0].as_object();
  EXPECT_EQ(trainer.at("pid").to_number<int>(), kTrainer);
  EXPECT_EQ(trainer.at("name").as_string(), "cudaperf-train");
  EXPECT_EQ(trainer.at("sm_util_max").to_number<int>(), 71);
  EXPECT_EQ(trainer.at("mem_util_max").to_number<int>(), 12);
  EXPECT_EQ(trainer.at("samples").to_number<int>(), 2); // the idle sample is no evidence
  EXPECT_EQ(look.at("busy_samples_ours").to_number<int>(), 1);
  EXPECT_TRUE(tenantsFoundBusy(look));
}

TEST(GpuTenants, AnIdleNeighbourWithAContextIsNoEvidence) {
  // A trainer waiting for its rewards holds its context but runs nothing:
  // a candidate that left its own kernels running is still charged.
  const json::object look = readTenants({sample(kWorker, 100), sample(kTrainer, 0, 0)}, machine());
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_FALSE(tenantsFoundBusy(look));
}

TEST(GpuTenants, EverythingBelowTheJudgeIsTheCandidatesSide) {
  // The worker's sandbox init and the worker itself, the judge's own kernels.
  const json::object look = readTenants({sample(kWorkerInit, 30), sample(kWorker, 100), sample(kJudge, 5)}, machine());
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_EQ(look.at("busy_samples_ours").to_number<int>(), 3);
}

TEST(GpuTenants, AKilledWorkerThatLeftTheJudgesTreeIsStillTheCandidates) {
  // Killed, its sandbox init reparented away from the judge while its
  // context is torn down: the judge remembered its processes when it started.
  ProcessView view = machine();
  view.ours = {kJudge}; // no longer below the judge...
  const json::object away = readTenants({sample(kWorker, 97)}, view);
  EXPECT_EQ(busyOthers(away).size(), 1u); // ...and not remembered: it would pass for a neighbour
  view.ours.insert(kWorker);              // remembered, as the judge does for every worker it runs
  const json::object remembered = readTenants({sample(kWorker, 97)}, view);
  EXPECT_TRUE(busyOthers(remembered).empty());
  EXPECT_EQ(remembered.at("busy_samples_ours").to_number<int>(), 1);
}

TEST(GpuTenants, OnlyAProcessHoldingAContextIsATenant) {
  // Alive here but not in the driver's list of contexts (a thread id of some
  // process, a pid the driver numbered elsewhere): nobody we can name.
  const json::object look = readTenants({sample(kWorkerInit, 0), sample(kTrainer, 55)}, machine({kJudge, kWorker}));
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_EQ(look.at("busy_unattributed").to_number<int>(), 1);
}

TEST(GpuTenants, AProcessThatIsGoneCannotTakeTheCharge) {
  // A pid this judge cannot see (exited, or numbered in another namespace)
  // might have been the candidate's: it counts for no one.
  const json::object look = readTenants({sample(4242, 99), sample(kWorker, 50)}, machine());
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_EQ(look.at("busy_unattributed").to_number<int>(), 1);
}

TEST(GpuTenants, TheDriversNumbersMustBeTheJudges) {
  // Inside a container some drivers report the host's pids: the judge's own
  // context is then not under its own number, and a busy pid that happens
  // to exist here is nobody we know.
  const json::object look = readTenants({sample(kTrainer, 80)}, machine({9001, 9002, 9003}));
  EXPECT_EQ(look.at("attribution").as_string(), "foreign_pids");
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_EQ(look.at("busy_unattributed").to_number<int>(), 1);
  EXPECT_FALSE(tenantsFoundBusy(look));
}

TEST(GpuTenants, UnderMpsNoWorkIsAttributed) {
  // Every MPS client's kernels run in the server's process, the candidate's too.
  const json::object look = readTenants({sample(kMps, 100)}, machine({kJudge, kMps}));
  EXPECT_EQ(look.at("attribution").as_string(), "mps");
  EXPECT_TRUE(busyOthers(look).empty());
}

TEST(GpuTenants, NoSamplesNoEvidence) {
  const json::object look = readTenants({}, machine());
  EXPECT_TRUE(busyOthers(look).empty());
  EXPECT_EQ(look.at("samples").to_number<int>(), 0);
  EXPECT_FALSE(tenantsFoundBusy(json::object{{"available", false}, {"error", "cannot load libnvidia-ml.so.1"}}));
  // A look that says busy but is not available is not believed.
  EXPECT_FALSE(tenantsFoundBusy(json::object{{"available", false}, {"busy_others", json::array{1}}}));
}

TEST(GpuTenants, UuidInNvmlsForm) {
  EXPECT_EQ(nvmlUuidText("GPU-0123456789abcdef0123456789abcdef"), "GPU-01234567-89ab-cdef-0123-456789abcdef");
  EXPECT_EQ(nvmlUuidText("GPU-0123"), "");
  EXPECT_EQ(nvmlUuidText("GPU-0123456789abcdef0123456789abcdeg"), "");
  EXPECT_EQ(nvmlUuidText("MIG-0123456789abcdef0123456789abcdef"), "");
}

TEST(GpuTenants, ABusyTenantMakesEveryTimedAnswerTheMachines) {
  const json::object busy = readTenants({sample(kTrainer, 64)}, machine());
  for (const char *rule : {"gpu_busy", "gpu_share"}) {
    const json::object verdict = verdictAfterTenants(rejectedAnswer(rule), busy);
    EXPECT_EQ(verdict.at("status").as_string(), "harness_error") << rule;
    EXPECT_EQ(verdict.at("error_kind").as_string(), "gpu_contended");
    EXPECT_EQ(verdict.at("rejection_set_aside").as_object().at("rejected_by").as_string(), rule);
    EXPECT_NE(std::string(verdict.at("error").as_string()).find("pid 300 (cudaperf-train, SM up to 64%)"),
              std::string::npos)
        << verdict.at("error");
    EXPECT_TRUE(verdict.contains("timing")); // what it measured travels with it
  }
  // An ok answer's time was not its own either: no reward is made of it.
  const json::object ok = verdictAfterTenants(okAnswer(), busy);
  EXPECT_EQ(ok.at("status").as_string(), "harness_error");
  EXPECT_FALSE(ok.contains("rejection_set_aside"));
  EXPECT_EQ(ok.at("timing").as_object().at("median_ms").as_double(), 0.31);
}

TEST(GpuTenants, OtherVerdictsAreNeverSetAside) {
  const json::object busy = readTenants({sample(kTrainer, 64)}, machine());
  // Rules the GPU's other users cannot set off, and verdicts with no timing.
  for (json::object answer :
       {rejectedAnswer("cpu_budget"), json::object{{"status", "wrong_answer"}, {"error", "mismatch"}},
        json::object{{"status", "rejected"}, {"error", "wrote into the judge's channel"}}}) {
    const std::string before = json::serialize(answer.at("status"));
    const json::object verdict = verdictAfterTenants(answer, busy);
    EXPECT_EQ(json::serialize(verdict.at("status")), before);
    EXPECT_TRUE(verdict.contains("gpu_tenants"));
  }
  json::object untimed{{"status", "ok"}};
  EXPECT_EQ(verdictAfterTenants(untimed, busy).at("status").as_string(), "ok");
}

TEST(GpuTenants, AQuietLookLeavesTheRejectionToTheControl) {
  const json::object verdict =
      verdictAfterTenants(rejectedAnswer("gpu_busy"), readTenants({sample(kWorker, 100)}, machine()));
  EXPECT_EQ(verdict.at("status").as_string(), "rejected");
  EXPECT_TRUE(rejectedForBusyGpu(verdict)); // the control runs come next
  EXPECT_EQ(verdict.at("gpu_tenants").as_object().at("attribution").as_string(), "ours");
}
