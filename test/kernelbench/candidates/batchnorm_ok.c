/* kb_6_batchnorm_train: BatchNorm1d(32) in training mode on x 64 x 32: the
   batch's own mean and biased variance, eps 1e-5; the running stats are read by nobody. */
#include <math.h>
void kb_6_batchnorm_train(const float *x, const float *w, const float *b, const float *running_mean,
                          const float *running_var, float *out) {
  (void)running_mean, (void)running_var;
  for (int f = 0; f < 32; ++f) {
    double mean = 0, var = 0;
    for (int n = 0; n < 64; ++n)
      mean += x[n * 32 + f];
    mean /= 64;
    for (int n = 0; n < 64; ++n)
      var += (x[n * 32 + f] - mean) * (x[n * 32 + f] - mean);
    var /= 64;
    for (int n = 0; n < 64; ++n)
      out[n * 32 + f] = (float)((x[n * 32 + f] - mean) / sqrt(var + 1e-5) * w[f] + b[f]);
  }
}
