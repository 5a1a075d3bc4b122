// Which example a training step reads, as a function of the run's seed and
// the example's global position only: epoch e visits every example once, in
// the order of a Fisher-Yates shuffle seeded by (seed, e), the same on every
// standard library. A resume at any step neither replays nor skips data, and
// needs no random state saved.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaperf::trainer {

// A seed for (run seed, a, b): the same every time, different for other arguments.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

// The example at global position `index` of a data set of n (> 0) examples.
std::size_t exampleAt(std::uint64_t index, std::size_t n, std::uint64_t seed);

} // namespace cudaperf::trainer
