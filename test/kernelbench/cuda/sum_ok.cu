// kb_2_sum_over_dim: x is 8 x 64 x 128, summed over the 64 rows; one thread per (batch, column).
__global__ void sumRows(const float *x, float *out) {
  int b = blockIdx.x, c = threadIdx.x;
  float total = 0.0f;
  for (int r = 0; r < 64; ++r)
    total += x[(b * 64 + r) * 128 + c];
  out[b * 128 + c] = total;
}

extern "C" void kb_2_sum_over_dim(const float *x, float *out) { sumRows<<<8, 128>>>(x, out); }
