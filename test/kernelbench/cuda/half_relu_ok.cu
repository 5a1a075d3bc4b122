// kb_12_half_precision: relu(x) * 0.5 on 64 x 64 halves.
#include <cuda_fp16.h>

__global__ void halfRelu(const __half *x, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(x[i]);
    out[i] = __float2half(v > 0.0f ? v * 0.5f : 0.0f);
  }
}

extern "C" void kb_12_half_precision(const __half *x, __half *out) {
  halfRelu<<<(64 * 64 + 255) / 256, 256>>>(x, out, 64 * 64);
}
