// Batched GEMM with TILE x TILE shared-memory tiles (TILE = 16 here) and the
// per-batch strides carried in a small struct; batch on grid z.
struct BatchStrides {
  long a, b, c;
};

template <int TILE>
__global__ void bmmTiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n,
                         int k, BatchStrides st) {
  __shared__ float sA[TILE][TILE];
  __shared__ float sB[TILE][TILE];
  const float *a = A + blockIdx.z * st.a;
  const float *b = B + blockIdx.z * st.b;
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    sA[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0.0f;
    sB[threadIdx.y][threadIdx.x] = (t + threadIdx.y < k && col < n) ? b[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p)
      acc += sA[threadIdx.y][p] * sB[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    C[blockIdx.z * st.c + row * n + col] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  const BatchStrides st{(long)m * k, (long)k * n, (long)m * n};
  constexpr int T = 16;
  dim3 grid((n + T - 1) / T, (m + T - 1) / T, batch);
  bmmTiled<T><<<grid, dim3(T, T)>>>(A, B, C, m, n, k, st);
}
