// extern __shared__ (dynamic) memory, sized at the launch.

__global__ void dynamicBuffer(float *x, int n) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

void launch(float *x, int n) {
  dynamicBuffer<<<1, 128, 128 * sizeof(float)>>>(x, n);
}
