/* Naive SGEMM: one output per thread, x threads along a row of C (B and C
 * accesses coalesced, A broadcast), no data reuse beyond the caches. */
#define IDX(r, c, ld) ((r) * (ld) + (c))
#define BDIM 16
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void sgemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    const int row = blockIdx.y * BDIM + threadIdx.y;
    const int col = blockIdx.x * BDIM + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int kk = 0; kk < K; ++kk)
        acc += A[IDX(row, kk, K)] * B[IDX(kk, col, N)];
    C[IDX(row, col, N)] = acc;
}

extern "C" void gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    dim3 block(BDIM, BDIM);
    dim3 grid(CEIL_DIV(N, BDIM), CEIL_DIV(M, BDIM));
    sgemm_naive<<<grid, block>>>(A, B, C, M, N, K);
}
