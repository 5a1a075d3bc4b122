/* Wrong: evaluation-mode BatchNorm (the running statistics) where the module
   is in training mode (the batch's own statistics). */
#include <math.h>
void kb_6_batchnorm_train(const float *x, const float *w, const float *b, const float *running_mean,
                          const float *running_var, float *out) {
  
  for (int f = 0; f < 32; ++f) {
    double mean = 0, var = 0;
    for (int n = 0; n < 64; ++n)
      mean += x[n * 32 + f];
    mean /= 64;
    for (int n = 0; n < 64; ++n)
      var += (x[n * 32 + f] - mean) * (x[n * 32 + f] - mean);
    var /= 64;
    for (int n = 0; n < 64; ++n)
      out[n * 32 + f] = (float)((x[n * 32 + f] - running_mean[f]) / sqrt(running_var[f] + 1e-5) * w[f] + b[f]);
  }
}
