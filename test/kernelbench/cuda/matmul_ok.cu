// kb_3_matmul: A 64 x 96 times B 96 x 48, one thread per output element.
__global__ void matmul(const float *A, const float *B, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= 64 || col >= 48)
    return;
  float acc = 0.0f;
  for (int k = 0; k < 96; ++k)
    acc += A[row * 96 + k] * B[k * 48 + col];
  C[row * 48 + col] = acc;
}

extern "C" void kb_3_matmul(const float *A, const float *B, float *out) {
  matmul<<<dim3(3, 4), dim3(16, 16)>>>(A, B, out);
}
