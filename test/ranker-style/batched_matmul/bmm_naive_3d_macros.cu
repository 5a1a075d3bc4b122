/* Batched GEMM, one output per thread: x over columns, y over rows, z over
 * the batch. Matrix addressing through macros. */
#define MAT(base, b, stride) ((base) + (long)(b) * (stride))
#define IDX(r, c, ld) ((long)(r) * (ld) + (c))

__global__ void bmm3d(const float *A, const float *B, float *C, int m, int n, int k)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    const float *a = MAT(A, blockIdx.z, (long)m * k);
    const float *b = MAT(B, blockIdx.z, (long)k * n);
    float sum = 0.0f;
    for (int p = 0; p < k; ++p)
        sum += a[IDX(row, p, k)] * b[IDX(p, col, n)];
    MAT(C, blockIdx.z, (long)m * n)[IDX(row, col, n)] = sum;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k)
{
    dim3 block(32, 4);
    dim3 grid((n + 31) / 32, (m + 3) / 4, batch);
    bmm3d<<<grid, block>>>(A, B, C, m, n, k);
}
