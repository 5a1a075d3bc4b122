// Grid-stride loop: i = global index + k * (blockDim.x * gridDim.x); stride 1,
// the loop condition is a bounds guard, and the idiom is counted.

__global__ void saxpy(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
