#include "cudaperf/trainer/ConfigFields.h"

#include "cudaperf/contracts/JsonFieldReader.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace cudaperf::trainer {
namespace json = boost::json;

void readConfigFields(const std::string &jsonText, const std::string &origin, const ConfigTable &table) {
  json::value parsed;
  try {
    parsed = json::parse(jsonText);
  } catch (const std::exception &error) {
    throw std::invalid_argument(origin + ": not JSON: " + error.what());
  }
  // "grpo.json: 'group_size' must be an integer"
  const JsonFieldReader fields([&](const std::string &field, const std::string &why) {
    throw std::invalid_argument(origin + ": " + (field.empty() ? std::string("the file") : "'" + field + "'") + " " +
                                why);
  });
  for (const auto &[key, value] : fields.object(parsed, "")) {
    const std::string name(key);
    auto it = std::find_if(table.begin(), table.end(), [&](const auto &f) { return name == f.first; });
    if (it == table.end())
      fields.fail(name, "is not a setting (see docs/training.md)");
    std::visit(
        [&](auto *member) {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            *member = fields.string(value, name);
          } else if constexpr (std::is_same_v<T, bool>) {
            *member = fields.boolean(value, name);
          } else if constexpr (std::is_same_v<T, double>) {
            *member = fields.number(value, name);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            *member = fields.strings(value, name);
          } else {
            // 3 and 3.0 alike: a whole number.
            const double n = fields.number(value, name);
            if (n != std::floor(n))
              fields.fail(name, "must be an integer");
            *member = static_cast<T>(n);
          }
        },
        it->second);
  }
}

std::string writeConfigFields(const ConfigTable &table) {
  json::object out;
  for (const auto &[key, field] : table)
    std::visit(
        [&](auto *member) {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            json::array items;
            for (const auto &item : *member)
              items.push_back(json::value(item));
            out[key] = std::move(items);
          } else {
            out[key] = *member;
          }
        },
        field);
  return json::serialize(out);
}

} // namespace cudaperf::trainer
