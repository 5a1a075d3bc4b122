// One thread per query row, one pass with an online softmax: q and the 64
// accumulators in registers; neighbouring threads read the same key (a
// broadcast), so K and V reads are shared by the warp.
__global__ void attentionThread(const float *__restrict__ Q, const float *__restrict__ K, const float *__restrict__ V,
                                float *__restrict__ out, int heads, int seq) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= heads * seq)
    return;
  int h = t / seq;
  const float *k = K + (long)h * seq * 64, *v = V + (long)h * seq * 64;
  float q[64], acc[64];
#pragma unroll
  for (int d = 0; d < 64; ++d) {
    q[d] = Q[(long)t * 64 + d] * 0.125f;
    acc[d] = 0.0f;
  }
  float best = -INFINITY, sum = 0.0f;
  for (int j = 0; j < seq; ++j) {
    float s = 0.0f;
#pragma unroll
    for (int d = 0; d < 64; ++d)
      s += q[d] * k[j * 64 + d];
    const float top = fmaxf(best, s), correction = expf(best - top), p = expf(s - top);
    sum = sum * correction + p;
#pragma unroll
    for (int d = 0; d < 64; ++d)
      acc[d] = acc[d] * correction + p * v[j * 64 + d];
    best = top;
  }
#pragma unroll
  for (int d = 0; d < 64; ++d)
    out[(long)t * 64 + d] = acc[d] / sum;
}

extern "C" void attention(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  attentionThread<<<(heads * seq + 127) / 128, 128>>>(Q, K, V, out, heads, seq);
}
