#include "cudaperf/trainer/ConfigFields.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace cudaperf::trainer {
namespace json = boost::json;

namespace {

[[noreturn]] void fail(const std::string &origin, const std::string &key, const std::string &what) {
  throw std::invalid_argument(origin + ": '" + key + "' " + what);
}

double numberOf(const json::value &value, const std::string &origin, const std::string &key) {
  if (!value.is_number())
    fail(origin, key, "must be a number");
  return value.to_number<double>();
}

std::int64_t integerOf(const json::value &value, const std::string &origin, const std::string &key) {
  const double n = numberOf(value, origin, key);
  if (n != std::floor(n))
    fail(origin, key, "must be an integer");
  return static_cast<std::int64_t>(n);
}

} // namespace

void readConfigFields(const std::string &jsonText, const std::string &origin, const ConfigTable &table) {
  json::value parsed;
  try {
    parsed = json::parse(jsonText);
  } catch (const std::exception &error) {
    throw std::invalid_argument(origin + ": not JSON: " + error.what());
  }
  if (!parsed.is_object())
    throw std::invalid_argument(origin + ": not a JSON object");
  for (const auto &[key, value] : parsed.as_object()) {
    const std::string name(key);
    auto it = std::find_if(table.begin(), table.end(), [&](const auto &f) { return name == f.first; });
    if (it == table.end())
      fail(origin, name, "is not a setting (see docs/training.md)");
    std::visit(
        [&](auto *member) {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (!value.is_string())
              fail(origin, name, "must be a string");
            *member = std::string(value.as_string());
          } else if constexpr (std::is_same_v<T, bool>) {
            if (!value.is_bool())
              fail(origin, name, "must be true or false");
            *member = value.as_bool();
          } else if constexpr (std::is_same_v<T, double>) {
            *member = numberOf(value, origin, name);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (!value.is_array())
              fail(origin, name, "must be an array of strings");
            member->clear();
            for (const auto &item : value.as_array()) {
              if (!item.is_string())
                fail(origin, name, "must be an array of strings");
              member->push_back(std::string(item.as_string()));
            }
          } else {
            *member = static_cast<T>(integerOf(value, origin, name));
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
