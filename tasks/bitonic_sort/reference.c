#include <stdlib.h>
#include <string.h>

static int ascending(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

void bitonic_sort(const float *x, float *out, int n) {
  memcpy(out, x, sizeof(float) * (size_t)n);
  qsort(out, (size_t)n, sizeof(float), ascending);
}
