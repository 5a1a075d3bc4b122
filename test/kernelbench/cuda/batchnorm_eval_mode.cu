// Wrong: evaluation mode (the running statistics) for a module in training mode.
__global__ void batchNorm(const float *x, const float *weight, const float *bias, const float *mean,
                          const float *variance, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 64 * 32)
    return;
  int f = i % 32;
  out[i] = (x[i] - mean[f]) * rsqrtf(variance[f] + 1e-5f) * weight[f] + bias[f];
}

extern "C" void kb_6_batchnorm_train(const float *x, const float *bn_weight, const float *bn_bias,
                                     const float *bn_running_mean, const float *bn_running_var, float *out) {
  batchNorm<<<8, 256>>>(x, bn_weight, bn_bias, bn_running_mean, bn_running_var, out);
}
