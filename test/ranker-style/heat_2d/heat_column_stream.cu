// Streaming version: a thread owns one column of a 32-row segment and walks
// down it, keeping (up, centre, down) in registers, so each value is loaded
// from global memory once vertically; the left and right neighbours come
// from the adjacent lanes by shuffles (lanes 0 and 31 load theirs). Threads
// past the last column stay in the loop so the shuffles see every lane.
#define SEG_ROWS 32
#define FULL 0xffffffffu

__global__ void heat_stream(const float *__restrict__ u, float *__restrict__ out, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const bool inside = j < cols;
  const int i0 = blockIdx.y * SEG_ROWS;
  const int i1 = min(i0 + SEG_ROWS, rows);
  float up = inside && i0 > 0 ? u[(long)(i0 - 1) * cols + j] : 0.0f;
  float c = inside ? u[(long)i0 * cols + j] : 0.0f;
  for (int i = i0; i < i1; ++i) {
    const float down = inside && i + 1 < rows ? u[(long)(i + 1) * cols + j] : 0.0f;
    float left = __shfl_up_sync(FULL, c, 1);
    float right = __shfl_down_sync(FULL, c, 1);
    if (lane == 0)
      left = inside && j > 0 ? u[(long)i * cols + j - 1] : 0.0f;
    if (lane == 31)
      right = j + 1 < cols ? u[(long)i * cols + j + 1] : 0.0f;
    if (inside) {
      const long at = (long)i * cols + j;
      if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
        out[at] = c;
      else
        out[at] = c + 0.2f * (up + down + left + right - 4.0f * c);
    }
    up = c;
    c = down;
  }
}

extern "C" void heat_2d(const float *u, float *out, int rows, int cols) {
  dim3 grid((cols + 127) / 128, (rows + SEG_ROWS - 1) / SEG_ROWS);
  heat_stream<<<grid, 128>>>(u, out, rows, cols);
}
