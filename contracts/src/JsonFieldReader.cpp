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
    fail(field, "expected an object");
  return value.get_object();
}

const json::array &JsonFieldReader::array(const json::value &value, const std::string &field) const {
  if (!value.is_array())
    fail(field, "expected an array");
  return value.get_array();
}

const json::value &JsonFieldReader::required(const json::object &object, const std::string &key,
                                             const std::string &field) const {
  const json::value *value = object.if_contains(key);
  if (!value)
    fail(field.empty() ? key : field + "." + key, "missing");
  return *value;
}

std::string JsonFieldReader::string(const json::value &value, const std::string &field) const {
  if (!value.is_string())
    fail(field, "expected a string");
  return std::string(value.get_string());
}

double JsonFieldReader::number(const json::value &value, const std::string &field) const {
  if (!value.is_number())
    fail(field, "expected a number");
  return value.to_number<double>();
}

double JsonFieldReader::finiteNumber(const json::value &value, const std::string &field) const {
  const double result = number(value, field);
  if (!std::isfinite(result))
    fail(field, "not finite");
  return result;
}

std::vector<double> JsonFieldReader::finiteNumbers(const json::value &value, const std::string &field) const {
  std::vector<double> out;
  const json::array &values = array(value, field);
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back(finiteNumber(values[i], field + "[" + std::to_string(i) + "]"));
  return out;
}

std::int64_t JsonFieldReader::integer(const json::value &value, const std::string &field) const {
  if (value.is_int64())
    return value.get_int64();
  if (value.is_uint64() && value.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(value.get_uint64());
  fail(field, "expected an integer");
}

} // namespace cudaperf
