/*
 * dot product -- deliberately simple version.
 *
 * A single block of 256 threads walks the whole vector with a block
 * stride; each thread accumulates in double, then a shared-memory tree
 * combines the 256 partial sums. Only one SM does any work.
 */
#define NTHREADS 256

__global__ void dot_one_block(const float *x, const float *y, float *out, int n)
{
    __shared__ double acc[NTHREADS];
    double s = 0.0;
    for (int i = threadIdx.x; i < n; i += NTHREADS)
        s += (double)x[i] * (double)y[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int half = NTHREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            acc[threadIdx.x] += acc[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = (float)acc[0];
}

extern "C" void dot(const float *x, const float *y, float *out, int n)
{
    dot_one_block<<<1, NTHREADS>>>(x, y, out, n);
}
