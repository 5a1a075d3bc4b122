// cudaperf-compile: one candidate through CandidateCompiler (sandboxed nvcc,
// artifact cache, forbidden-symbol check), for scripts such as gpu-test.
//
//   cudaperf-compile --cache DIR [--nvcc PATH] [--arch sm_90] [--task DIR] FILE.cu
//
// --task takes the allowed libraries from the task's task.json. Prints one
// JSON object; exit status 0 when the library is usable, 1 when not, 2 on bad usage.
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/daemon/CandidateCompiler.h"
#include "cudaperf/daemon/ToolArguments.h"

#include <boost/json.hpp>

#include <iostream>

int main(int argc, char **argv) {
  cudaperf::CompileOptions options;
  std::vector<std::string> allowed;
  std::string source;
  try {
    for (cudaperf::ToolArguments args(argc, argv); args.next();) {
      const std::string &arg = args.arg();
      if (arg == "--cache")
        options.cacheDirectory = args.value();
      else if (arg == "--nvcc")
        options.nvcc = args.value();
      else if (arg == "--arch")
        options.arch = args.value();
      else if (arg == "--task")
        allowed = cudaperf::loadTask(args.value()).allowedLibraries;
      else if (source.empty() && !args.isFlag())
        source = arg;
      else
        args.unknown();
    }
    if (options.cacheDirectory.empty() || source.empty())
      throw std::invalid_argument("--cache DIR and a source file are required");
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-compile: " << error.what()
              << "\nusage: cudaperf-compile --cache DIR [--nvcc PATH] [--arch sm_90] [--task DIR] FILE.cu\n";
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
