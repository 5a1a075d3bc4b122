#include "cudaperf/trainer/DataOrder.h"

#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace cudaperf::trainer {

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (a + 1) * 0xBF58476D1CE4E5B9ull ^ (b + 1) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  return x ^ (x >> 32);
}

std::size_t exampleAt(std::uint64_t index, std::size_t n, std::uint64_t seed) {
  const std::uint64_t epoch = index / n;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 generator(mixSeed(seed, epoch, 1u << 20));
  for (std::size_t i = n; i > 1; --i)
    std::swap(order[i - 1], order[generator() % i]);
  return order[index % n];
}

} // namespace cudaperf::trainer
