// Plain CUDA: one thread per query row; a pass for the maximum score, a
// second for the exponentials and the weighted sum of V (64 accumulators).
__global__ void attentionKernel(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= heads * seq)
    return;
  int h = t / seq;
  const float *q = Q + (long)t * 64, *k = K + (long)h * seq * 64, *v = V + (long)h * seq * 64;
  float best = -INFINITY;
  for (int j = 0; j < seq; ++j) {
    float s = 0.0f;
    for (int d = 0; d < 64; ++d)
      s += q[d] * k[j * 64 + d];
    best = fmaxf(best, s * 0.125f);
  }
  float acc[64] = {};
  float sum = 0.0f;
  for (int j = 0; j < seq; ++j) {
    float s = 0.0f;
    for (int d = 0; d < 64; ++d)
      s += q[d] * k[j * 64 + d];
    const float p = expf(s * 0.125f - best);
    sum += p;
#pragma unroll
    for (int d = 0; d < 64; ++d)
      acc[d] += p * v[j * 64 + d];
  }
#pragma unroll
  for (int d = 0; d < 64; ++d)
    out[(long)t * 64 + d] = acc[d] / sum;
}

extern "C" void attention(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  attentionKernel<<<(heads * seq + 127) / 128, 128>>>(Q, K, V, out, heads, seq);
}
