/* Box blur 5x5, clamp-to-edge: the textbook kernel, one output pixel per
 * thread, 25 global byte loads each, x threads along a row. */
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
#define PIX(img, r, c, ld) ((img)[(long)(r) * (ld) + (c)])
#define RADIUS 2

__global__ void box_blur(const unsigned char *src, unsigned char *dst, int h, int w)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= h || col >= w)
        return;
    int acc = 0;
    for (int dy = -RADIUS; dy <= RADIUS; ++dy)
        for (int dx = -RADIUS; dx <= RADIUS; ++dx)
            acc += PIX(src, CLAMP(row + dy, 0, h - 1), CLAMP(col + dx, 0, w - 1), w);
    PIX(dst, row, col, w) = (unsigned char)(acc / 25);
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width)
{
    int bx = 32, by = width < 64 ? 4 : 8;
    dim3 block(bx, by), grid((width + bx - 1) / bx, (h + by - 1) / by);
    box_blur<<<grid, block>>>(img, out, h, width);
}
