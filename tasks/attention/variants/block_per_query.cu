// One 64-thread block per query row: the scores in (dynamic) shared memory,
// block max and sum through shared memory, then thread d sums column d of V
// (coalesced across the block).
__global__ void attentionBlock(const float *__restrict__ Q, const float *__restrict__ K, const float *__restrict__ V,
                               float *__restrict__ out, int seq) {
  extern __shared__ float scores[];
  __shared__ float q[64], partial[64];
  const int t = blockIdx.x, h = t / seq, d = threadIdx.x;
  const float *k = K + (long)h * seq * 64, *v = V + (long)h * seq * 64;
  q[d] = Q[(long)t * 64 + d] * 0.125f;
  __syncthreads();
  float best = -INFINITY;
  for (int j = d; j < seq; j += 64) {
    float s = 0.0f;
    for (int e = 0; e < 64; ++e)
      s += q[e] * k[j * 64 + e];
    scores[j] = s;
    best = fmaxf(best, s);
  }
  partial[d] = best;
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (d < stride)
      partial[d] = fmaxf(partial[d], partial[d + stride]);
    __syncthreads();
  }
  best = partial[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = d; j < seq; j += 64) {
    scores[j] = expf(scores[j] - best);
    sum += scores[j];
  }
  partial[d] = sum;
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (d < stride)
      partial[d] += partial[d + stride];
    __syncthreads();
  }
  sum = partial[0];
  float acc = 0.0f;
  for (int j = 0; j < seq; ++j)
    acc += scores[j] * v[j * 64 + d];
  out[(long)t * 64 + d] = acc / sum;
}

extern "C" void attention(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  attentionBlock<<<heads * seq, 64, seq * sizeof(float)>>>(Q, K, V, out, seq);
}
