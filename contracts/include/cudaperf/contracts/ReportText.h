// Human-readable form of the feature report.
#pragma once

#include "cudaperf/contracts/FeatureReport.h"

#include <string>

namespace cudaperf {

std::string reportToText(const TranslationUnitReport &report);

} // namespace cudaperf
