// GELU over a grid sized from the device (4 blocks per SM), grid-stride
// loop with read-only loads. 0.5 v (1 + tanh(u)) is written as the logistic
// form v / (1 + exp(-2u)): one expf and one division.
__device__ __forceinline__ float GeluLogistic(float v) {
  const float u = 0.7978845608f * fmaf(0.044715f * v, v * v, v);
  return v / (1.0f + expf(-2.0f * u));
}

__global__ void GeluGridStride(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = GeluLogistic(__ldg(x + i));
}

extern "C" void gelu(const float *x, float *y, int n) {
  int device = 0, multiprocessors = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  const int threadsPerBlock = 512;
  int blocks = multiprocessors * 4;
  const int needed = (n + threadsPerBlock - 1) / threadsPerBlock;
  if (needed < blocks)
    blocks = needed;
  GeluGridStride<<<blocks, threadsPerBlock>>>(x, y, n);
}
