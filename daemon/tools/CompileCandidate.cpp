// cudaperf-compile: one candidate through CandidateCompiler (sandboxed nvcc,
// artifact cache, forbidden-symbol check), for scripts such as gpu-test.
//
//   cudaperf-compile --cache DIR [--nvcc PATH] [--arch sm_90] [--task DIR] FILE.cu
//
// --task takes the allowed libraries from the task's task.json. Prints one
// JSON object; exit status 0 when the library is usable, 1 when not, 2 on bad usage.
#include "cudaperf/contracts/CommandLine.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/daemon/CandidateCompiler.h"

#include <boost/json.hpp>

#include <iostream>

int main(int argc, char **argv) {
  cudaperf::CompileOptions options;
  std::vector<std::string> allowed;
  std::string source, cache, taskDir;
  CLI::App app("cudaperf-compile: one candidate through the daemon's sandboxed compile", "cudaperf-compile");
  cudaperf::valueFlag(app, "--cache", cache, "the artifact cache")->required();
  cudaperf::valueFlag(app, "--nvcc", options.nvcc, "nvcc")->default_str(options.nvcc.string());
  cudaperf::valueFlag(app, "--arch", options.arch, "-arch")->default_str(options.arch);
  cudaperf::valueFlag(app, "--task", taskDir, "the task folder: its allowed libraries");
  app.add_option("source", source, "FILE.cu")->required();
  if (const auto status = cudaperf::parseOrExit(app, {argv + 1, argv + argc}, "cudaperf-compile"))
    return *status;
  try {
    options.cacheDirectory = cache;
    if (!taskDir.empty())
      allowed = cudaperf::loadTask(taskDir).allowedLibraries;
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-compile: " << error.what() << "\n" << app.help();
    return 2;
  }
  std::string text;
  try {
    text = cudaperf::readTextFile(source);
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-compile: " << error.what() << "\n";
    return 2;
  }

  cudaperf::CandidateCompiler compiler(options);
  const auto result = compiler.compile(text, allowed);
  boost::json::array forbidden;
  for (const auto &symbol : result.forbidden)
    forbidden.push_back(boost::json::value(symbol));
  std::cout << boost::json::serialize(boost::json::object{{"source", source},
                                                          {"ok", result.ok},
                                                          {"rejected", result.rejected},
                                                          {"forbidden", forbidden},
                                                          {"cached", result.cached},
                                                          {"seconds", result.seconds},
                                                          {"library", result.library.string()},
                                                          {"outcome", cudaperf::sandbox::toString(result.outcome)},
                                                          {"log", result.log}})
            << std::endl;
  return result.ok ? 0 : 1;
}
