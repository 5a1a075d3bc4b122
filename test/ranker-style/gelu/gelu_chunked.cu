/* GELU (tanh approximation), each thread owns a contiguous run of
 * CHUNK elements -- the way one would split the loop across CPU threads.
 * Adjacent threads touch addresses CHUNK floats apart. */
#include <math.h>

#define CHUNK 64

__global__ void gelu_chunks(const float *x, float *y, int n)
{
    const float k = 0.7978845608f; /* sqrt(2 / pi) */
    int start = (blockIdx.x * blockDim.x + threadIdx.x) * CHUNK;
    int stop = start + CHUNK < n ? start + CHUNK : n;
    for (int i = start; i < stop; i++) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
    }
}

extern "C" void gelu(const float *x, float *y, int n)
{
    int workers = (n + CHUNK - 1) / CHUNK;
    gelu_chunks<<<(workers + 127) / 128, 128>>>(x, y, n);
}
