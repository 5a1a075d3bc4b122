/* heat_2d -- the direct port of the CPU loop: one thread per row walks
 * every column of its row. Only `rows` threads, and a warp's 32 loads are a
 * whole row apart. */
#define IDX(r, c, ld) ((long)(r) * (ld) + (c))

__global__ void heat_row_worker(const float *u, float *o, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; ++c) {
        if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
            o[IDX(r, c, cols)] = u[IDX(r, c, cols)];
        else
            o[IDX(r, c, cols)] = u[IDX(r, c, cols)] +
                0.2f * (u[IDX(r - 1, c, cols)] + u[IDX(r + 1, c, cols)] + u[IDX(r, c - 1, cols)] +
                        u[IDX(r, c + 1, cols)] - 4.0f * u[IDX(r, c, cols)]);
    }
}

extern "C" void heat_2d(const float *u, float *out, int rows, int cols)
{
    heat_row_worker<<<(rows + 63) / 64, 64>>>(u, out, rows, cols);
}
