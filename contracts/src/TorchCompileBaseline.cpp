#include "cudaperf/contracts/TorchCompileBaseline.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/contracts/JsonFieldReader.h"
#include "cudaperf/contracts/TaskSpec.h"

#include <boost/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace cudaperf {

std::optional<TorchCompileBaseline> loadTorchCompileBaseline(const std::filesystem::path &file) {
  std::ifstream stream(file);
  if (!stream)
    return std::nullopt;
  const JsonFieldReader reader([&](const std::string &field, const std::string &why) {
    throw TaskError(file.string() + (field.empty() ? "" : ": " + field) + ": " + why);
  });
  std::stringstream text;
  text << stream.rdbuf();
  boost::system::error_code error;
  const boost::json::value document = boost::json::parse(text.str(), error);
  if (error)
    reader.fail("", "invalid JSON: " + error.message());
  const auto &root = reader.object(document, "");
  const std::string status = reader.string(reader.required(root, "status", ""), "status");
  if (status == "failed")
    return std::nullopt;
  if (status != "ok")
    reader.fail("status", "expected ok or failed, got '" + status + "'");
  TorchCompileBaseline baseline;
  baseline.compiledOverEager =
      reader.finiteNumber(reader.required(root, "compiled_over_eager", ""), "compiled_over_eager");
  if (!(baseline.compiledOverEager > 0))
    reader.fail("compiled_over_eager", "must be positive");
  if (auto *eager = reader.optional(root, "eager_ms"))
    baseline.eagerMs = reader.finiteNumber(*eager, "eager_ms");
  if (auto *compiled = reader.optional(root, "compiled_ms"))
    baseline.compiledMs = reader.finiteNumber(*compiled, "compiled_ms");
  if (auto *device = reader.optional(root, "device"))
    baseline.device = reader.string(*device, "device");
  // Measured for this problem: a problem.py edited or replaced since leaves the ratio behind.
  const std::string measured = reader.string(reader.required(root, "problem_key", ""), "problem_key");
  const std::string current = contentKey({fileContents(file.parent_path() / "problem.py")});
  if (measured != current)
    reader.fail("problem_key", "measured for another problem.py than the one beside it: import again");
  return baseline;
}

double speedupAgainstTorchCompile(double speedupAgainstEager, const TorchCompileBaseline &baseline) {
  return speedupAgainstEager * baseline.compiledOverEager;
}

} // namespace cudaperf
