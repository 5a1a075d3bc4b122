#include "cudaperf/trainer/RankerData.h"

#include <stdexcept>

namespace cudaperf {

// Built without SQLite's development files: the store cannot be read here.
RankerDataset loadRankerDataFromStore(const std::filesystem::path &database) {
  throw std::invalid_argument("cannot read " + database.string() +
                              ": built without SQLite; use `cudaperfd export --db FILE --format jsonl` and --data");
}

} // namespace cudaperf
