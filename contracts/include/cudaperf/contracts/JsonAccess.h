// Lenient reads of an answer's nested fields, for code that takes what is
// there (the daemon's profile and feedback, the reward assembly, the
// trainer's reward client): an absent field, or one of another type, is
// nullptr / nullopt / the fallback. Validation that must name a bad field
// is JsonFieldReader's.
#pragma once

#include <boost/json/object.hpp>

#include <optional>

namespace cudaperf {

inline const boost::json::object *objectAt(const boost::json::object *object, const char *key) {
  const auto *value = object ? object->if_contains(key) : nullptr;
  return value ? value->if_object() : nullptr;
}

inline const boost::json::object *objectAt(const boost::json::object &object, const char *key) {
  return objectAt(&object, key);
}

inline std::optional<double> numberAt(const boost::json::object *object, const char *key) {
  const auto *value = object ? object->if_contains(key) : nullptr;
  return value && value->is_number() ? std::optional<double>(value->to_number<double>()) : std::nullopt;
}

inline double numberOr(const boost::json::object *object, const char *key, double fallback) {
  return numberAt(object, key).value_or(fallback);
}

} // namespace cudaperf
