// cudaperf-train's command lines (CLI11 underneath) and settings files: what
// is accepted, and errors that name the flag or the key.
#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/ConfigFields.h"

#include <gtest/gtest.h>

using cudaperf::Flags;
using cudaperf::parseFlags;

namespace {

std::string flagError(const std::vector<std::string> &args) {
  try {
    parseFlags(args, {"model", "top-p"}, {"ids"});
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

struct Settings {
  std::string name = "default";
  int steps = 1;
  double rate = 0.5;
  bool chat = false;
  std::uint64_t seed = 7;
  std::vector<std::string> tasks;
};

cudaperf::trainer::ConfigTable tableOf(Settings &s) {
  return {{"name", &s.name}, {"steps", &s.steps}, {"rate", &s.rate},
          {"chat", &s.chat}, {"seed", &s.seed},   {"tasks", &s.tasks}};
}

std::string settingsError(const std::string &text) {
  Settings s;
  try {
    cudaperf::trainer::readConfigFields(text, "run.json", tableOf(s));
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

} // namespace

TEST(TrainerFlags, ValuesSwitchesAndTheLastOfARepeatedFlag) {
  const Flags flags =
      parseFlags({"--model", "a", "--ids", "--top-p", "0.9", "--model", "b"}, {"model", "top-p"}, {"ids"});
  EXPECT_EQ(flags.at("model"), "b");
  EXPECT_EQ(flags.at("ids"), "1");
  EXPECT_DOUBLE_EQ(cudaperf::numberFlag(flags, "top-p", 1.0), 0.9);
  EXPECT_DOUBLE_EQ(cudaperf::numberFlag(flags, "temperature", 0.7), 0.7); // not given: the fallback
  EXPECT_EQ(cudaperf::textFlag(flags, "device", "cpu"), "cpu");
  EXPECT_FALSE(cudaperf::switchFlag(parseFlags({}, {"model"}, {"ids"}), "ids"));
  EXPECT_EQ(parseFlags({"--top-p", "-0.5"}, {"top-p"}).at("top-p"), "-0.5"); // a negative number is a value
  EXPECT_EQ(parseFlags({"--top-p=0.25"}, {"top-p"}).at("top-p"), "0.25");
  EXPECT_FALSE(cudaperf::switchFlag(parseFlags({"--ids=false"}, {}, {"ids"}), "ids")); // CLI11: a switch may say false
}

TEST(TrainerFlags, ProblemsNameTheArgument) {
  EXPECT_EQ(flagError({"--modle", "x"}), "unknown arguments '--modle' 'x'");
  EXPECT_EQ(flagError({"--model", "x", "stray"}), "unknown argument 'stray'");
  EXPECT_NE(flagError({"--model"}).find("--model"), std::string::npos);
  try {
    cudaperf::numberFlag({{"top-p", "most"}}, "top-p", 1.0);
    FAIL() << "a word was read as a number";
  } catch (const std::invalid_argument &error) {
    EXPECT_STREQ(error.what(), "--top-p: expected a number, got 'most'");
  }
}

TEST(TrainerSettings, EveryTypeReadsAndWritesBack) {
  Settings s;
  cudaperf::trainer::readConfigFields(
      R"({"name": "run", "steps": 3.0, "rate": 2, "chat": true, "seed": 12345678901, "tasks": ["a", "b"]})", "run.json",
      tableOf(s));
  EXPECT_EQ(s.name, "run");
  EXPECT_EQ(s.steps, 3);
  EXPECT_DOUBLE_EQ(s.rate, 2.0);
  EXPECT_TRUE(s.chat);
  EXPECT_EQ(s.seed, 12345678901u);
  EXPECT_EQ(s.tasks, (std::vector<std::string>{"a", "b"}));
  Settings again;
  cudaperf::trainer::readConfigFields(cudaperf::trainer::writeConfigFields(tableOf(s)), "written", tableOf(again));
  EXPECT_EQ(again.name, "run");
  EXPECT_EQ(again.steps, 3);
  EXPECT_EQ(again.tasks, s.tasks);
}

TEST(TrainerSettings, ErrorsNameTheFileAndTheKey) {
  EXPECT_EQ(settingsError(R"({"stepz": 3})"), "run.json: 'stepz' is not a setting (see docs/training.md)");
  EXPECT_EQ(settingsError(R"({"steps": 2.5})"), "run.json: 'steps' must be an integer");
  EXPECT_EQ(settingsError(R"({"steps": "3"})"), "run.json: 'steps' must be a number");
  EXPECT_EQ(settingsError(R"({"chat": 1})"), "run.json: 'chat' must be true or false");
  EXPECT_EQ(settingsError(R"({"name": 1})"), "run.json: 'name' must be a string");
  EXPECT_EQ(settingsError(R"({"tasks": ["a", 2]})"), "run.json: 'tasks[1]' must be a string");
  EXPECT_EQ(settingsError(R"([1])"), "run.json: the file must be an object");
  EXPECT_EQ(settingsError("{").rfind("run.json: not JSON: ", 0), 0u);
}
