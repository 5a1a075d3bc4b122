// expect: runtime_error or wrong_answer
// class: 11 writes beyond the canary band
// A tiled transpose whose last tile row is written 12 MiB past the output:
// scratch space "borrowed" from memory beyond the buffer.
__global__ void transposeTiles(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < cols && y < rows)
    tile[threadIdx.y][threadIdx.x] = in[(long)y * cols + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  if (tx < rows && ty < cols)
    out[(long)ty * rows + tx] = tile[threadIdx.x][threadIdx.y];
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
    out[(long)rows * cols + (3L << 20)] = 0.0f; // the scratch
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  transposeTiles<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 32)>>>(in, out, rows, cols);
}
