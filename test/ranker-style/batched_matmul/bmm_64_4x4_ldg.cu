/*
 * Batched GEMM, 64 x 64 output tile per block (16 x 16 threads, 4 x 4
 * outputs each, strided by 16 for conflict-free shared reads), depth-16
 * slabs fetched with __ldg, A's slab stored k-major.
 */
#define BT 64
#define BD 16

__global__ void __launch_bounds__(256) bmm_tile64(const float *__restrict__ A, const float *__restrict__ B,
                                                  float *__restrict__ C, int m, int n, int k)
{
    __shared__ float sa[BD][BT + 4];
    __shared__ float sb[BD][BT + 4];
    const float *a = A + (long)blockIdx.z * m * k;
    const float *b = B + (long)blockIdx.z * k * n;
    float *c = C + (long)blockIdx.z * m * n;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int r0 = blockIdx.y * BT, c0 = blockIdx.x * BT;
    float acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            acc[i][j] = 0.0f;
    for (int t = 0; t < k; t += BD) {
        for (int e = tid; e < BT * BD; e += 256) {
            int r = e / BD, p = e % BD;
            sa[p][r] = (r0 + r < m && t + p < k) ? __ldg(&a[(long)(r0 + r) * k + t + p]) : 0.0f;
            int q = e / BT, col = e % BT;
            sb[q][col] = (t + q < k && c0 + col < n) ? __ldg(&b[(long)(t + q) * n + c0 + col]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BD; ++p) {
            float av[4], bv[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                av[q] = sa[p][ty + 16 * q];
                bv[q] = sb[p][tx + 16 * q];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            int row = r0 + ty + 16 * i, col = c0 + tx + 16 * j;
            if (row < m && col < n)
                c[(long)row * n + col] = acc[i][j];
        }
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k)
{
    dim3 block(16, 16), grid((n + BT - 1) / BT, (m + BT - 1) / BT, batch);
    bmm_tile64<<<grid, block>>>(A, B, C, m, n, k);
}
