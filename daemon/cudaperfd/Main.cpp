// cudaperfd: the reward daemon.
//
//   cudaperfd [--config FILE] [--listen 127.0.0.1:8742] [--tasks DIR] [--db FILE] [--gpus 0,1]
//             [--cpu-workers N] [--ranker FILE] [--cache DIR] [--log-level info] ...
//   cudaperfd export --db FILE [--db FILE ...] --format jsonl
//                                                  one evaluation per line on stdout (stores merged)
//
// SIGTERM/SIGINT: stop accepting, finish what is in flight, exit. SIGHUP: reload the ranker.
#include "cudaperf/contracts/CommandLine.h"
#include "cudaperf/daemon/Api.h"
#include "cudaperf/daemon/DaemonConfig.h"
#include "cudaperf/daemon/EvaluationStore.h"
#include "cudaperf/daemon/Evaluator.h"
#include "cudaperf/daemon/HttpServer.h"
#include "cudaperf/daemon/TaskCatalog.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <set>
#include <thread>

namespace net = boost::asio;

namespace {

int exportStore(const std::vector<std::string> &args) {
  CLI::App app("cudaperfd export: evaluations as JSON lines on stdout", "cudaperfd export");
  std::vector<std::string> databases;
  std::string format = "jsonl";
  cudaperf::valueFlag(app, "--db", databases, "a store; several are merged (each evaluation once)")->required();
  cudaperf::valueFlag(app, "--format", format, "jsonl, one evaluation per line")->check(CLI::IsMember({"jsonl"}));
  if (const auto status = cudaperf::parseOrExit(app, args, "cudaperfd export"))
    return *status;
  for (const auto &db : databases)
    if (!std::filesystem::exists(db)) {
      std::cerr << "cudaperfd export: no database " << db << "\n";
      return 1;
    }
  // Several daemons' stores, one training file: each line names its store,
  // and an evaluation two daemons both made (same request key) comes once.
  std::set<std::string> seen;
  std::int64_t total = 0;
  for (const auto &db : databases) {
    cudaperf::EvaluationStore store(db);
    const auto rows = databases.size() > 1 ? store.exportJsonl(std::cout, db, &seen) : store.exportJsonl(std::cout);
    std::cerr << "cudaperfd export: " << rows << " evaluations from " << db << "\n";
    total += rows;
  }
  if (databases.size() > 1)
    std::cerr << "cudaperfd export: " << total << " evaluations in all\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // An imported task's PyTorch reference computes on the CPU in the daemon:
  // on the GPU it would share the card with the candidates being timed, and
  // its outputs and CPU baseline would be cached as the CPU's
  // (check_eager.py sets it for cudaperf-evaluate on an idle machine only).
  unsetenv("CUDAPERF_REFERENCE_DEVICE");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "export")
    return exportStore({args.begin() + 1, args.end()});
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << cudaperf::daemonUsage();
    return 0;
  }
  cudaperf::DaemonConfig config;
  try {
    config = cudaperf::configFromArguments(args);
  } catch (const std::exception &error) {
    std::cerr << "cudaperfd: " << error.what() << " (cudaperfd --help lists every flag)\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(config.logLevel));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  try {
    cudaperf::EvaluationStore store(config.dbFile);
    cudaperf::CompileOptions compileOptions;
    compileOptions.nvcc = config.nvcc;
    compileOptions.arch = config.arch;
    compileOptions.cacheDirectory = config.cacheDir / "artifacts";
    compileOptions.parallelCompiles = config.cpuWorkers;
    compileOptions.limits.requireIsolation = !config.insecureNoIsolation;
    cudaperf::CandidateCompiler compiler(compileOptions);
    cudaperf::TaskCatalog catalog(config.tasksDir, config.cacheDir, compiler);
    cudaperf::Metrics metrics;
    cudaperf::Evaluator evaluator(config, store, catalog, compiler, metrics);
    net::io_context io;
    cudaperf::Api api(evaluator, catalog, metrics, io);
    cudaperf::HttpServer server(io, {net::ip::make_address(config.listenAddress), config.port}, api,
                                config.maxBodyBytes, config.idleTimeoutSeconds);
    server.start();
    // One line on stdout with the port (tests bind port 0 and read it).
    std::cout << "cudaperfd listening on " << config.listenAddress << ":" << server.port() << std::endl;
    spdlog::info("listening on {}:{}, {} tasks, store {} ({} evaluations)", config.listenAddress, server.port(),
                 catalog.tasks().size(), config.dbFile.string(), store.count());
    for (const auto &task : catalog.tasks()) // after the port line, which is the first on stdout
      if (!task.torchCompileProblem.empty())
        spdlog::warn("task {}: no speedup against torch.compile: {}", task.name, task.torchCompileProblem);

    net::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
    std::thread drainer;
    std::function<void(const boost::system::error_code &, int)> onSignal = [&](const boost::system::error_code &error,
                                                                               int signal) {
      if (error)
        return;
      if (signal == SIGHUP) {
        const std::string problem = evaluator.reloadRanker();
        spdlog::info("SIGHUP: ranker {}", problem.empty() ? "reloaded" : "kept (" + problem + ")");
        signals.async_wait(onSignal);
        return;
      }
      spdlog::info("signal {}: draining ({} evaluations in flight)", signal, evaluator.inFlight());
      api.startDraining();
      server.stopAccepting();
      if (!drainer.joinable())
        drainer = std::thread([&] {
          api.waitForInFlight();
          // Let the last answers go out before the I/O threads stop.
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          io.stop();
        });
    };
    signals.async_wait(onSignal);
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < config.httpThreads; ++i)
      threads.emplace_back([&] { io.run(); });
    io.run();
    for (auto &thread : threads)
      thread.join();
    if (drainer.joinable())
      drainer.join();
    spdlog::info("stopped; store holds {} evaluations", store.count());
  } catch (const std::exception &error) {
    spdlog::critical("cudaperfd: {}", error.what());
    return 1;
  }
  return 0;
}
