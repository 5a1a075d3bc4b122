#include "cudaperf/contracts/FeatureVector.h"

#include <stdexcept>

namespace cudaperf {

namespace {
// One table of member pointers keeps the name order and the struct in step.
constexpr std::array<double FeatureVector::*, kFeatureCount> kMembers = {
    &FeatureVector::coal, &FeatureVector::ai,      &FeatureVector::occ,  &FeatureVector::div,
    &FeatureVector::xfer, &FeatureVector::atomics, &FeatureVector::sync, &FeatureVector::kernels,
    &FeatureVector::tpb,  &FeatureVector::gmem,    &FeatureVector::ops};
} // namespace

std::array<double, kFeatureCount> FeatureVector::toArray() const {
  std::array<double, kFeatureCount> values{};
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    values[i] = this->*kMembers[i];
  return values;
}

FeatureVector FeatureVector::fromArray(const std::array<double, kFeatureCount> &values) {
  FeatureVector vector;
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    vector.*kMembers[i] = values[i];
  return vector;
}

double &FeatureVector::operator[](std::size_t index) {
  if (index >= kFeatureCount)
    throw std::out_of_range("feature index out of range");
  return this->*kMembers[index];
}

double FeatureVector::operator[](std::size_t index) const {
  if (index >= kFeatureCount)
    throw std::out_of_range("feature index out of range");
  return this->*kMembers[index];
}

double &FeatureVector::valueAt(std::size_t index) {
  if (index < kFeatureCount)
    return (*this)[index];
  if (index < kAllFeatureCount)
    return extended[index - kFeatureCount];
  if (index >= kRankerFeatureCount)
    throw std::out_of_range("feature index out of range");
  return own[index - kAllFeatureCount];
}

double FeatureVector::valueAt(std::size_t index) const { return const_cast<FeatureVector &>(*this).valueAt(index); }

std::optional<std::size_t> featureIndex(std::string_view name) {
  for (std::size_t i = 0; i < kRankerFeatureCount; ++i)
    if (featureName(i) == name)
      return i;
  return std::nullopt;
}

std::string_view featureName(std::size_t index) {
  if (index < kFeatureCount)
    return kFeatureNames[index];
  if (index < kAllFeatureCount)
    return kExtendedFeatureNames[index - kFeatureCount];
  if (index < kRankerFeatureCount)
    return kOwnFeatureNames[index - kAllFeatureCount];
  throw std::out_of_range("feature index out of range");
}

} // namespace cudaperf
