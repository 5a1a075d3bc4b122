// A PyTorch extension as LLMs write it: ATen types, a templated kernel, pybind.
#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void swishKernel(const scalar_t *__restrict__ x, scalar_t *__restrict__ y, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    scalar_t v = x[i];
    y[i] = v / (scalar_t(1) + exp(-v));
  }
}

torch::Tensor swish(torch::Tensor x) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  const int threads = 256;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "swish", ([&] {
    swishKernel<scalar_t><<<(n + threads - 1) / threads, threads>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
  }));
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("swish", &swish, "Swish activation (CUDA)"); }
