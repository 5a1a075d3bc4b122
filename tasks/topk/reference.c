#include <stdlib.h>
#include <string.h>

static int descending(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x < y) - (x > y);
}

void topk(const float *x, float *out, int rows, int cols) {
  float *row = malloc(sizeof(float) * (size_t)cols);
  for (int r = 0; r < rows; ++r) {
    memcpy(row, x + (long)r * cols, sizeof(float) * (size_t)cols);
    qsort(row, (size_t)cols, sizeof(float), descending);
    memcpy(out + (long)r * 32, row, sizeof(float) * 32);
  }
  free(row);
}
