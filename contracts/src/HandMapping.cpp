#include "cudaperf/contracts/HandMapping.h"

namespace cudaperf {

double handMappingScore(const FeatureVector &features, const std::vector<double> &normalised) {
  static const std::size_t coal = *featureIndex("coal"), occ = *featureIndex("occ");
  double score = 0;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    if (i == coal || i == occ)
      score += features[i]; // already the paper's mapped score
    else
      score += kHandMappingSigns[i] * normalised[i];
  }
  return score;
}

} // namespace cudaperf
