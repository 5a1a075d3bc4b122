// Accesses inside __device__ helpers are analysed with the caller's values.

__device__ float loadAt(const float *base, int row, int col, int ld) { return base[row * ld + col]; }

__global__ void useHelper(const float *m, float *out, int ld) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  out[col] = loadAt(m, blockIdx.y, col, ld) + loadAt(m, col, blockIdx.y, ld);
}
