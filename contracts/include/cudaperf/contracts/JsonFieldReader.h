// Typed reads of JSON fields whose errors name the field: what task.json,
// ranker.json, the daemon's config and requests, the trainer's settings and
// the ranker's data are read with. Each user frames the error its own way
// through `Failure` (called with the field's path, "" for the top level, and
// what is wrong, worded "must be a string", "missing", ...; it must throw).
#pragma once

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf {

class JsonFieldReader {
public:
  using Failure = std::function<void(const std::string &field, const std::string &why)>;
  explicit JsonFieldReader(Failure failure) : failure_(std::move(failure)) {}

  [[noreturn]] void fail(const std::string &field, const std::string &why) const;

  const boost::json::object &object(const boost::json::value &value, const std::string &field) const;
  const boost::json::array &array(const boost::json::value &value, const std::string &field) const;
  // field.key, or key alone at the top level (field "").
  static std::string path(const std::string &field, const std::string &key);
  // object[key], or a failure naming field.key.
  const boost::json::value &required(const boost::json::object &object, const std::string &key,
                                     const std::string &field) const;
  // object[key]; nullptr when it is absent or null (an optional field).
  const boost::json::value *optional(const boost::json::object &object, const std::string &key) const;
  std::string string(const boost::json::value &value, const std::string &field) const;
  double number(const boost::json::value &value, const std::string &field) const;
  double finiteNumber(const boost::json::value &value, const std::string &field) const;
  // An array of finite numbers; an element's failure names field[i].
  std::vector<double> finiteNumbers(const boost::json::value &value, const std::string &field) const;
  std::int64_t integer(const boost::json::value &value, const std::string &field) const;
  bool boolean(const boost::json::value &value, const std::string &field) const;
  // An array of strings; an element's failure names field[i].
  std::vector<std::string> strings(const boost::json::value &value, const std::string &field) const;

  template <class Enum>
  Enum choice(const boost::json::value &value, const std::string &field,
              const std::vector<std::pair<const char *, Enum>> &choices) const {
    const std::string text = string(value, field);
    std::string names;
    for (const auto &[name, result] : choices) {
      if (text == name)
        return result;
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    fail(field, "expected one of " + names + ", got '" + text + "'");
  }

private:
  Failure failure_;
};

} // namespace cudaperf
