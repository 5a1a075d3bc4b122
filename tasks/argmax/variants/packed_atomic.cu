// (value, index) packed into one 64-bit key whose unsigned order is the
// argmax order: the float mapped to an order-preserving integer in the high
// half, the complemented index in the low half (smaller index wins ties).
__device__ unsigned long long pack(float v, int i) {
  unsigned int bits = __float_as_uint(v);
  bits = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return (static_cast<unsigned long long>(bits) << 32) | static_cast<unsigned int>(~i);
}

__global__ void clear(unsigned long long *key) { *key = 0ull; }

__global__ void argmaxPacked(const float *__restrict__ x, int n, unsigned long long *key) {
  unsigned long long best = 0ull;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned long long k = pack(x[i], i);
    best = k > best ? k : best;
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    unsigned long long other = __shfl_down_sync(0xffffffffu, best, offset);
    best = other > best ? other : best;
  }
  if (threadIdx.x % 32 == 0)
    atomicMax(key, best);
}

__global__ void unpack(const unsigned long long *key, int *out) {
  *out = static_cast<int>(~static_cast<unsigned int>(*key & 0xffffffffull));
}

extern "C" void argmax(const float *x, int *out, int n) {
  unsigned long long *key;
  cudaMalloc(&key, sizeof *key);
  clear<<<1, 1>>>(key);
  argmaxPacked<<<528, 256>>>(x, n, key);
  unpack<<<1, 1>>>(key, out);
  cudaFree(key);
}
