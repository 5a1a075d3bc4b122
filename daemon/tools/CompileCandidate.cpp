// cudaperf-compile: one candidate through CandidateCompiler (sandboxed nvcc,
// artifact cache, forbidden-symbol check), for scripts such as gpu-test.
//
//   cudaperf-compile --cache DIR [--nvcc PATH] [--arch sm_90] [--task DIR] FILE.cu
//
// --task takes the allowed libraries from the task's task.json. Prints one
// JSON object; exit status 0 when the library is usable, 1 when not, 2 on bad usage.
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/CandidateCompiler.h"

#include <boost/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  cudaperf::CompileOptions options;
  std::vector<std::string> allowed;
  std::string source;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc)
          throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--cache")
        options.cacheDirectory = next();
      else if (arg == "--nvcc")
        options.nvcc = next();
      else if (arg == "--arch")
        options.arch = next();
      else if (arg == "--task")
        allowed = cudaperf::loadTask(next()).allowedLibraries;
      else if (source.empty() && arg.rfind("--", 0) != 0)
        source = arg;
      else
        throw std::invalid_argument("unknown argument " + arg);
    }
    if (options.cacheDirectory.empty() || source.empty())
      throw std::invalid_argument("--cache DIR and a source file are required");
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-compile: " << error.what()
              << "\nusage: cudaperf-compile --cache DIR [--nvcc PATH] [--arch sm_90] [--task DIR] FILE.cu\n";
    return 2;
  }
  std::ifstream file(source);
  if (!file) {
    std::cerr << "cudaperf-compile: cannot read " << source << "\n";
    return 2;
  }
  std::stringstream text;
  text << file.rdbuf();

  cudaperf::CandidateCompiler compiler(options);
  const auto result = compiler.compile(text.str(), allowed);
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
