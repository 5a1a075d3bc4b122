// Forgets the 1 / sqrt(64) scale of the scores.
__global__ void attentionUnscaled(const float *__restrict__ Q, const float *__restrict__ K, const float *__restrict__ V,
                                  float *__restrict__ out, int heads, int seq) {
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (t >= heads * seq)
    return;
  const int h = t / seq;
  const float *k = K + (long)h * seq * 64, *v = V + (long)h * seq * 64;
  const float q0 = Q[(long)t * 64 + lane], q1 = Q[(long)t * 64 + lane + 32];
  float best = -INFINITY, sum = 0.0f, acc0 = 0.0f, acc1 = 0.0f;
  for (int j = 0; j < seq; ++j) {
    float s = q0 * k[j * 64 + lane] + q1 * k[j * 64 + lane + 32];
    for (int offset = 16; offset > 0; offset >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, offset);
    const float top = fmaxf(best, s), correction = __expf(best - top), p = __expf(s - top);
    sum = sum * correction + p;
    acc0 = acc0 * correction + p * v[j * 64 + lane];
    acc1 = acc1 * correction + p * v[j * 64 + lane + 32];
    best = top;
  }
  out[(long)t * 64 + lane] = acc0 / sum;
  out[(long)t * 64 + lane + 32] = acc1 / sum;
}

extern "C" void attention(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  attentionUnscaled<<<(heads * seq * 32 + 255) / 256, 256>>>(Q, K, V, out, heads, seq);
}
