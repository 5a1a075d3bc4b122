/*
 * bmm_patch: one block per 64 x 64 patch of C[z], 256 threads in one
 * dimension, each owning a 4 x 4 patch of *adjacent* outputs (rows 4*ty..,
 * columns 4*tx..). Operand slabs 8 deep are staged through registers: the
 * next slab is fetched with __ldg while the current one is multiplied.
 * Adjacent columns per thread: 4-way bank conflicts on the B reads.
 */
#define PATCH 64
#define SLAB 8
#define NT 256
#define IN_A(row, kk) (((row) < M && (kk) < K) ? __ldg(pa + (long)(row) * K + (kk)) : 0.0f)
#define IN_B(kk, col) (((kk) < K && (col) < N) ? __ldg(pb + (long)(kk) * N + (col)) : 0.0f)

struct Problem {
    const float *a, *b;
    float *c;
    int M, N, K;
};

/* Two elements of the 64 x 8 A slab and two of the 8 x 64 B slab per thread. */
__device__ __forceinline__ void fetch_slab(const Problem &p, int r0, int c0, int k0, int tid, float ra[2], float rb[2])
{
    const float *pa = p.a, *pb = p.b;
    const int M = p.M, N = p.N, K = p.K;
    for (int s = 0; s < 2; ++s) {
        const int e = tid + s * NT;
        ra[s] = IN_A(r0 + (e >> 3), k0 + (e & 7));
        rb[s] = IN_B(k0 + (e >> 6), c0 + (e & 63));
    }
}

__global__ void __launch_bounds__(NT) bmm_patch(Problem p)
{
    __shared__ float As[SLAB][PATCH + 1]; /* k-major */
    __shared__ float Bs[SLAB][PATCH + 1];
    Problem q = p;
    q.a += (long)blockIdx.z * p.M * p.K;
    q.b += (long)blockIdx.z * p.K * p.N;
    q.c += (long)blockIdx.z * p.M * p.N;
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int r0 = blockIdx.y * PATCH, c0 = blockIdx.x * PATCH;
    float out[16];
    for (int i = 0; i < 16; ++i)
        out[i] = 0.0f;
    float ra[2], rb[2];
    fetch_slab(q, r0, c0, 0, tid, ra, rb);
    for (int k0 = 0; k0 < q.K; k0 += SLAB) {
        for (int s = 0; s < 2; ++s) {
            const int e = tid + s * NT;
            As[e & 7][e >> 3] = ra[s];
            Bs[e >> 6][e & 63] = rb[s];
        }
        __syncthreads();
        if (k0 + SLAB < q.K)
            fetch_slab(q, r0, c0, k0 + SLAB, tid, ra, rb); /* in flight while this slab is used */
        for (int kk = 0; kk < SLAB; ++kk) {
            float x[4], y[4];
            for (int i = 0; i < 4; ++i) {
                x[i] = As[kk][4 * ty + i];
                y[i] = Bs[kk][4 * tx + i];
            }
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j)
                    out[i * 4 + j] += x[i] * y[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const int row = r0 + 4 * ty + i, col = c0 + 4 * tx + j;
            if (row < q.M && col < q.N)
                q.c[(long)row * q.N + col] = out[i * 4 + j];
        }
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k)
{
    const Problem p = {A, B, C, m, n, k};
    const dim3 grid((n + PATCH - 1) / PATCH, (m + PATCH - 1) / PATCH, batch);
    bmm_patch<<<grid, NT>>>(p);
}
