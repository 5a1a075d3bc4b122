// JSON form of the feature report (schema cudaperf.features/1), with Boost.JSON.
#pragma once

#include "cudaperf/contracts/FeatureReport.h"

#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace cudaperf {

boost::json::object featuresToJson(const FeatureVector &features);
// Reads the 11 keys; throws std::invalid_argument naming the missing or non-numeric key.
FeatureVector featuresFromJson(const boost::json::value &value);
// The names of a vector's unknown features ("features_unknown" beside
// "features" in reports, exports and answers), and back: an absent or null
// list is none; an unknown name throws std::invalid_argument.
boost::json::array unknownFeaturesToJson(const FeatureVector &features);
void readUnknownFeatures(const boost::json::value *names, FeatureVector &features);
// The extended features ("extended" beside "features"), and back: absent or
// null (a report of an older analysis) marks them all unknown.
boost::json::object extendedFeaturesToJson(const FeatureVector &features);
void readExtendedFeatures(const boost::json::value *extended, FeatureVector &features);

boost::json::value reportToJson(const TranslationUnitReport &report);

// Pretty-printed JSON text: one document for one report, an array for several.
std::string reportsToJsonText(const std::vector<TranslationUnitReport> &reports, bool asArray);

} // namespace cudaperf
