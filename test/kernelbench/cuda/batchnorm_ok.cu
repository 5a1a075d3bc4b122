// kb_6_batchnorm_train: BatchNorm1d(32) in training mode over a batch of 64:
// each feature normalised with the batch's mean and biased variance.
__global__ void batchNorm(const float *x, const float *weight, const float *bias, float *out) {
  int f = threadIdx.x;
  if (f >= 32)
    return;
  float mean = 0.0f;
  for (int b = 0; b < 64; ++b)
    mean += x[b * 32 + f];
  mean /= 64.0f;
  float variance = 0.0f;
  for (int b = 0; b < 64; ++b) {
    float d = x[b * 32 + f] - mean;
    variance += d * d;
  }
  variance /= 64.0f;
  float scale = weight[f] * rsqrtf(variance + 1e-5f);
  for (int b = 0; b < 64; ++b)
    out[b * 32 + f] = (x[b * 32 + f] - mean) * scale + bias[f];
}

extern "C" void kb_6_batchnorm_train(const float *x, const float *bn_weight, const float *bn_bias,
                                     const float *bn_running_mean, const float *bn_running_var, float *out) {
  batchNorm<<<1, 32>>>(x, bn_weight, bn_bias, out);
}
