// One 256-thread block per row; float4 loads when the row start is 16-byte
// aligned (cols % 4 == 0), scalar loads otherwise; warp shuffles, then
// shared memory across the 8 warps.
__global__ void gemvBlock(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int cols) {
  const float *a = A + (long)blockIdx.x * cols;
  float sum = 0.0f;
  if (cols % 4 == 0) {
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    for (int j = threadIdx.x; j < cols / 4; j += blockDim.x) {
      float4 u = a4[j], v = x4[j];
      sum += u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
    }
  } else {
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
      sum += a[j] * x[j];
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float warps[8];
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < 8; ++w)
      total += warps[w];
    y[blockIdx.x] = total;
  }
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvBlock<<<rows, 256>>>(A, x, y, cols);
}
