// cudaperf-draw-check: the fused draw (TokenDrawKernels.h) against an inverse
// CDF in double precision on the host, on rows a model's logits can be:
// spread and peaked rows of Qwen's 151,936 ids whose last 128 (unused padding
// ids) sit far below the rest, uniforms at both ends of (0, 1) included, a
// row of no mass and a row with a NaN, at three temperatures. Prints one JSON
// line; exits 1 where a draw is wrong:
//   - a token more than kNear ids from the exact one (f32 sums in another
//     order move a draw only a few ids, where ids of ~1e-7 of the mass sit
//     within the sums' rounding; a wrong block is 128 away), or fewer than
//     90 % of tokens equal to it;
//   - a padding id drawn (their mass is below 1e-20);
//   - |log-prob - exact| > 1e-3 at an equal token;
//   - a finite log-prob for the row of no mass or the row with a NaN.
#include "cudaperf/trainer/TokenDrawKernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace decode = cudaperf::trainer::decode;

namespace {

constexpr int kVocab = 151936, kRows = 64, kPadding = 128, kNear = 8;

void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
}

struct Exact {
  long token;
  double logProb;
};

// The first id whose cumulative probability reaches u (double precision).
Exact exactDraw(const float *logits, float u, float temperature) {
  const double inverse = 1.0 / temperature;
  double top = -INFINITY;
  for (int i = 0; i < kVocab; ++i)
    top = std::max(top, logits[i] * inverse);
  double total = 0;
  for (int i = 0; i < kVocab; ++i)
    total += std::exp(logits[i] * inverse - top);
  double cumulative = 0;
  long token = kVocab - 1;
  for (int i = 0; i < kVocab; ++i) {
    cumulative += std::exp(logits[i] * inverse - top);
    if (cumulative >= u * total) {
      token = i;
      break;
    }
  }
  return {token, logits[token] * inverse - top - std::log(total)};
}

template <class T> struct DeviceArray {
  T *data = nullptr;
  explicit DeviceArray(std::size_t count) { check(cudaMalloc(&data, count * sizeof(T)), "cudaMalloc"); }
  ~DeviceArray() { cudaFree(data); }
};

} // namespace

int main() try {
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(1e-7f, 1.f);
  std::vector<float> logits(static_cast<std::size_t>(kRows) * kVocab), uniforms(kRows);
  for (int r = 0; r < kRows; ++r) {
    float *row = &logits[static_cast<std::size_t>(r) * kVocab];
    const float spread = r % 4 == 0 ? 12.f : 2.5f; // every fourth row peaked
    for (int i = 0; i < kVocab; ++i)
      row[i] = spread * normal(generator);
    // Padding ids far below the rest but of mass in f32 (1e-16 to 1e-35 of
    // the row's at T = 1): the last blocks of mass, where a draw overshooting
    // the cumulative sums would land.
    for (int i = kVocab - kPadding; i < kVocab; ++i)
      row[i] = -25.f;
    // The sampler's extremes: (1 - 2e-7) u + 1e-7 for u near 1 and near 0.
    uniforms[r] = r % 8 == 1 ? 1.f - 1.f / 8388608.f : r % 8 == 2 ? 1e-7f : uniform(generator);
  }
  const int noMass = kRows - 1, withNaN = kRows - 2;
  std::fill_n(&logits[static_cast<std::size_t>(noMass) * kVocab], kVocab, -INFINITY);
  logits[static_cast<std::size_t>(withNaN) * kVocab + 5] = NAN;

  DeviceArray<float> deviceLogits(logits.size()), deviceUniforms(kRows), deviceLogProbs(kRows),
      workspace(decode::drawWorkspaceFloats(kRows, kVocab));
  DeviceArray<std::int64_t> deviceTokens(kRows);
  check(cudaMemcpy(deviceLogits.data, logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(deviceUniforms.data, uniforms.data(), kRows * sizeof(float), cudaMemcpyHostToDevice), "copy");

  bool ok = true;
  std::string json = "{";
  for (float temperature : {1.0f, 0.7f, 0.05f}) {
    decode::DrawArgs args;
    args.logits = deviceLogits.data;
    args.uniforms = deviceUniforms.data;
    args.temperature = temperature;
    args.tokens = deviceTokens.data;
    args.logProbs = deviceLogProbs.data;
    args.workspace = workspace.data;
    args.rows = kRows;
    args.vocab = kVocab;
    decode::drawTokens(args, nullptr);
    std::vector<std::int64_t> tokens(kRows);
    std::vector<float> logProbs(kRows);
    check(cudaMemcpy(tokens.data(), deviceTokens.data, kRows * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(logProbs.data(), deviceLogProbs.data, kRows * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    int equal = 0, far = 0, padding = 0;
    double worst = 0;
    for (int r = 0; r < withNaN; ++r) {
      const Exact exact = exactDraw(&logits[static_cast<std::size_t>(r) * kVocab], uniforms[r], temperature);
      equal += tokens[r] == exact.token;
      far += std::labs(static_cast<long>(tokens[r]) - exact.token) > kNear;
      padding += tokens[r] >= kVocab - kPadding;
      if (tokens[r] == exact.token)
        worst = std::max(worst, std::abs(exact.logProb - logProbs[r]));
    }
    const bool nonFiniteRows = std::isnan(logProbs[noMass]) && std::isnan(logProbs[withNaN]);
    const bool pass = far == 0 && equal >= 0.9 * withNaN && padding == 0 && worst <= 1e-3 && nonFiniteRows;
    ok = ok && pass;
    std::printf("%s T=%.2f: tokens equal %d of %d, %d more than %d ids away, %d padding ids, max |dlogp| %.3g, "
                "no-mass row log-prob %g, NaN row log-prob %g\n",
                pass ? "PASS" : "FAIL", temperature, equal, withNaN, far, kNear, padding, worst, logProbs[noMass],
                logProbs[withNaN]);
    char entry[160];
    std::snprintf(entry, sizeof entry, "%s\"T%.2f\": {\"equal\": %d, \"far\": %d, \"padding\": %d, \"max_dlogp\": %g}",
                  json.size() > 1 ? ", " : "", temperature, equal, far, padding, worst);
    json += entry;
  }
  std::printf("%s, \"rows\": %d, \"ok\": %s}\n", json.c_str(), withNaN, ok ? "true" : "false");
  return ok ? 0 : 1;
} catch (const std::exception &e) {
  std::fprintf(stderr, "cudaperf-draw-check: %s\n", e.what());
  return 2;
}
