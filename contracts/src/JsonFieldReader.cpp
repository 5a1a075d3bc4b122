#include "cudaperf/contracts/JsonFieldReader.h"

#include <boost/json.hpp>

#include <cmath>
#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;

void JsonFieldReader::fail(const std::string &field, const std::string &why) const {
  failure_(field, why);
  throw std::logic_error("JsonFieldReader: the failure handler returned"); // it must throw
}

const json::object &JsonFieldReader::object(const json::value &value, const std::string &field) const {
  if (!value.is_object())
    fail(field, "must be an object");
  return value.get_object();
}

const json::array &JsonFieldReader::array(const json::value &value, const std::string &field) const {
  if (!value.is_array())
    fail(field, "must be an array");
  return value.get_array();
}

std::string JsonFieldReader::path(const std::string &field, const std::string &key) {
  return field.empty() ? key : field + "." + key;
}

const json::value &JsonFieldReader::required(const json::object &object, const std::string &key,
                                             const std::string &field) const {
  const json::value *value = object.if_contains(key);
  if (!value)
    fail(path(field, key), "missing");
  return *value;
}

std::string JsonFieldReader::string(const json::value &value, const std::string &field) const {
  if (!value.is_string())
    fail(field, "must be a string");
  return std::string(value.get_string());
}

double JsonFieldReader::number(const json::value &value, const std::string &field) const {
  if (!value.is_number())
    fail(field, "must be a number");
  return value.to_number<double>();
}

double JsonFieldReader::finiteNumber(const json::value &value, const std::string &field) const {
  if (!value.is_number() || !std::isfinite(value.to_number<double>()))
    fail(field, "must be a finite number");
  return value.to_number<double>();
}

std::vector<double> JsonFieldReader::finiteNumbers(const json::value &value, const std::string &field) const {
  std::vector<double> out;
  const json::array &values = array(value, field);
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back(finiteNumber(values[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

const json::value *JsonFieldReader::optional(const json::object &object, const std::string &key) const {
  const json::value *value = object.if_contains(key);
  return value && !value->is_null() ? value : nullptr;
}

bool JsonFieldReader::boolean(const json::value &value, const std::string &field) const {
  if (!value.is_bool())
    fail(field, "must be true or false");
  return value.get_bool();
}

std::vector<std::string> JsonFieldReader::strings(const json::value &value, const std::string &field) const {
  std::vector<std::string> out;
  const json::array &values = array(value, field);
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back(string(values[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

std::int64_t JsonFieldReader::integer(const json::value &value, const std::string &field) const {
  if (value.is_int64())
    return value.get_int64();
  if (value.is_uint64() && value.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(value.get_uint64());
  fail(field, "must be an integer");
}

} // namespace cudaperf
