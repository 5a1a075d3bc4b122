// cudaperf: command-line client of cudaperfd.
//
//   cudaperf [--url http://127.0.0.1:8742[,http://host2:8742...]] analyze FILE.cu [--arch sm_90]
//   cudaperf [--url ...] eval --task NAME FILE.cu [--turn N]
//   cudaperf [--url ...] tasks | health
//   cudaperf import-kernelbench DIR|FILE... --out TASKS_DIR [--memory device|host] [--eager-baseline auto|none]
//                                [--torch-compile auto|none] [--jobs N]
//            (scripts/kernelbench/import_kernelbench.py with the Python that has torch:
//             $CUDAPERF_PYTHON, else python3)
//
// Several URLs (daemons that serve the same tasks): the request goes to one
// of them chosen at random, and on to the next when a daemon cannot be
// reached or answers 502, 503 or 504 (an evaluation is idempotent: the same
// request is the same answer). Prints the JSON answer; exit status 0 on HTTP
// 200, 1 otherwise, 2 on bad usage.
#include "cudaperf/contracts/CommandLine.h"
#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/daemon/InstalledPaths.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace json = boost::json;

namespace {

struct Answer {
  http::status status;
  std::string body;
};

Answer requestOne(const std::string &url, http::verb method, const std::string &target, const std::string &body) {
  std::string rest = url.rfind("http://", 0) == 0 ? url.substr(7) : url;
  if (!rest.empty() && rest.back() == '/')
    rest.pop_back();
  const auto colon = rest.rfind(':');
  const std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  const std::string port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
  net::io_context io;
  beast::tcp_stream stream(io);
  stream.connect(net::ip::tcp::resolver(io).resolve(host, port));
  http::request<http::string_body> message{method, target, 11};
  message.set(http::field::host, host);
  message.set(http::field::content_type, "application/json");
  message.body() = body;
  message.prepare_payload();
  http::write(stream, message);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(256u << 20);
  http::read(stream, buffer, parser);
  beast::error_code ignored;
  stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  return {parser.get().result(), parser.get().body()};
}

std::vector<std::string> splitUrls(const std::string &list) {
  std::vector<std::string> urls;
  std::stringstream items(list);
  for (std::string url; std::getline(items, url, ',');)
    if (!url.empty())
      urls.push_back(url);
  return urls;
}

int request(const std::string &urlList, http::verb method, const std::string &target, const std::string &body) {
  const std::vector<std::string> urls = splitUrls(urlList);
  if (urls.empty())
    throw std::runtime_error("no URL in '" + urlList + "'");
  const std::size_t first = std::random_device{}() % urls.size();
  std::string problems;
  for (std::size_t k = 0; k < urls.size(); ++k) {
    const std::string &url = urls[(first + k) % urls.size()];
    try {
      const Answer answer = requestOne(url, method, target, body);
      const bool tryAnother = answer.status == http::status::bad_gateway ||
                              answer.status == http::status::service_unavailable ||
                              answer.status == http::status::gateway_timeout;
      if (!tryAnother || k + 1 == urls.size()) {
        std::cout << answer.body << std::endl;
        return answer.status == http::status::ok ? 0 : 1;
      }
      problems += "\n  " + url + ": HTTP " + std::to_string(static_cast<int>(answer.status));
    } catch (const std::exception &error) {
      problems += "\n  " + url + ": " + error.what();
    }
    if (k + 1 < urls.size())
      std::cerr << "cudaperf: " << url << " did not serve the request; trying the next daemon\n";
  }
  throw std::runtime_error("no daemon answered:" + problems);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "import-kernelbench") {
    // The importer runs the problems' PyTorch code: it is Python, this only finds it.
    const char *python = std::getenv("CUDAPERF_PYTHON") ? std::getenv("CUDAPERF_PYTHON") : "python3";
    const std::string script =
        cudaperf::sharedData("scripts", CUDAPERF_SCRIPTS_DIR) / "kernelbench" / "import_kernelbench.py";
    std::vector<char *> command = {const_cast<char *>(python), const_cast<char *>(script.c_str())};
    for (std::size_t i = 1; i < args.size(); ++i)
      command.push_back(args[i].data());
    command.push_back(nullptr);
    execvp(python, command.data());
    std::cerr << "cudaperf import-kernelbench: cannot run " << python << " (set CUDAPERF_PYTHON to a Python with "
              << "torch)\n";
    return 2;
  }
  CLI::App app("cudaperf: command-line client of cudaperfd", "cudaperf");
  std::string url = "http://127.0.0.1:8742", file, task, arch = "sm_90";
  int turn = 1;
  cudaperf::valueFlag(app, "--url", url, "daemon URLs, comma-separated (failover)")->default_str(url);
  CLI::App *analyze = app.add_subcommand("analyze", "the static feature report of FILE.cu");
  analyze->add_option("file", file, "FILE.cu")->required();
  cudaperf::valueFlag(*analyze, "--arch", arch, "sm_80 or sm_90")->default_str(arch);
  CLI::App *eval = app.add_subcommand("eval", "evaluate FILE.cu against a task");
  eval->add_option("file", file, "FILE.cu")->required();
  cudaperf::valueFlag(*eval, "--task", task, "the task's name")->required();
  cudaperf::valueFlag(*eval, "--turn", turn, "the refinement turn")->check(CLI::PositiveNumber);
  CLI::App *tasks = app.add_subcommand("tasks", "the daemon's tasks");
  CLI::App *health = app.add_subcommand("health", "the daemon's health");
  CLI::App *import =
      app.add_subcommand("import-kernelbench", "KernelBench problems as tasks (DIR|FILE... --out TASKS_DIR)");
  app.require_subcommand(1);
  if (const auto status = cudaperf::parseOrExit(app, args, "cudaperf"))
    return *status;
  if (import->parsed()) { // only the first argument reaches the importer (it talks to no daemon)
    std::cerr << "cudaperf: import-kernelbench runs here, without a daemon: give it first, with no --url\n";
    return 2;
  }
  try {
    if (tasks->parsed() || health->parsed())
      return request(url, http::verb::get, tasks->parsed() ? "/v1/tasks" : "/healthz", "");
    if (analyze->parsed())
      return request(
          url, http::verb::post, "/v1/analyze",
          json::serialize(json::object{{"source", cudaperf::readTextFile(file)}, {"filename", file}, {"arch", arch}}));
    return request(
        url, http::verb::post, "/v1/evaluate",
        json::serialize(json::object{{"task", task}, {"source", cudaperf::readTextFile(file)}, {"turn", turn}}));
  } catch (const std::exception &error) {
    std::cerr << "cudaperf: " << error.what() << "\n";
    return 1;
  }
}
