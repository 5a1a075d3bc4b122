#include <math.h>

void nbody(const float *pos, float *acc, int n) {
  for (int i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) {
      double dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1], dz = pos[4 * j + 2] - pos[4 * i + 2];
      double d2 = dx * dx + dy * dy + dz * dz + 0.01;
      double s = pos[4 * j + 3] / (d2 * sqrt(d2));
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    acc[3 * i] = (float)ax;
    acc[3 * i + 1] = (float)ay;
    acc[3 * i + 2] = (float)az;
  }
}
