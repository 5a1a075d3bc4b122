// Batched matmul, flat launch with the batch index varying fastest across
// threads: neighbouring threads work on different matrices, so no load or
// store of a warp is coalesced.
__global__ void bmm_flat_batch_minor(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)batch * m * n)
    return;
  int b = t % batch;
  long rc = t / batch;
  int row = rc / n, col = rc % n;
  const float *a = A + (long)b * m * k, *bb = B + (long)b * k * n;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += a[(long)row * k + p] * bb[(long)p * n + col];
  C[(long)b * m * n + (long)row * n + col] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  long total = (long)batch * m * n;
  bmm_flat_batch_minor<<<(unsigned)((total + 255) / 256), 256>>>(A, B, C, batch, m, n, k);
}
