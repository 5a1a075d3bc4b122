#include "cudaperf/daemon/EvaluationStore.h"
#include "cudaperf/trainer/RankerData.h"

#include <sstream>
#include <stdexcept>

namespace cudaperf {

RankerDataset loadRankerDataFromStore(const std::filesystem::path &database) {
  if (!std::filesystem::exists(database))
    throw std::invalid_argument("no database " + database.string());
  EvaluationStore store(database);
  std::ostringstream exported; // the same lines as `cudaperfd export --format jsonl`
  store.exportJsonl(exported);
  return parseRankerData(exported.str(), database.string());
}

} // namespace cudaperf
