// The classic tree reduction: the loop is uniform (s halves each step), the
// test tid < s is lane-divergent once s < 32.

__global__ void reduceTree(const float *in, float *out) {
  __shared__ float buf[256];
  unsigned tid = threadIdx.x;
  buf[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = buf[0];
}
