// One 256-thread block per row as block_per_row, the sum of squares reduced
// with warp shuffles and one shared slot per warp instead of a tree.
#define THREADS 256

__global__ void rmsnormBlockShuffle(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ out,
                                    int cols) {
  __shared__ float slots[32];
  const float *row = x + (long)blockIdx.x * cols;
  float squares = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    squares += row[j] * row[j];
  for (int offset = 16; offset > 0; offset >>= 1)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = squares;
  __syncthreads();
  squares = threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  const float inv = rsqrtf(squares / cols + 1e-6f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[(long)blockIdx.x * cols + j] = row[j] * inv * w[j];
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  rmsnormBlockShuffle<<<rows, THREADS>>>(x, w, out, cols);
}
