// Sub-warp indexing: threadIdx.x / C and threadIdx.x % C (C a power of two
// below 32) split a warp into aligned groups of C lanes. `% C` is the lane
// within its group (stride 1), `/ C` the group: the same for its C lanes, so
// a value loaded at `rowPtr[thread / 8]` is too. Within a group the stride is
// known; runs of C lanes at unknown places count the 32-byte sectors a warp
// touches against a stride-1 warp's (8 floats fill a sector: 1; 4 doubles: 1;
// 2 floats a quarter: 4). A group base that changes inside a run, or a gather,
// stays unknown.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

// CSR SpMV with 8 lanes per row, the fastest of csr_spmv's kernels.
__global__ void subwarpSpmv(const int *rowPtr, const int *col, const float *val, const float *x, float *y, int rows) {
  int thread = blockIdx.x * blockDim.x + threadIdx.x;
  int row = thread / 8;
  int lane = thread % 8;
  if (row >= rows)
    return;
  float sum = 0;
  for (int j = rowPtr[row] + lane; j < rowPtr[row + 1]; j += 8)
    sum += val[j] * x[col[j]];
  if (lane == 0)
    y[row] = sum;
}
// CHECK-LABEL: kernel subwarpSpmv
// CHECK-DAG: global load rowPtr[row]  stride 0  score 0.2
// CHECK-DAG: global load val[j]  stride 1  score 1
// CHECK-DAG: global load col[j]  stride 1  score 1
// CHECK-DAG: global load x[col[j]]  stride unknown  score 0
// CHECK-DAG: global store y[row]  stride 0  score 0.2

__global__ void shapes(const float *in, float *out, const double *wide, const int *idx) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = in[(t / 8) * 64 + t % 8];
  s += in[(t >> 3) * 8 + (t & 7)];
  s += (float)wide[(t / 4) * 100 + t % 4];
  s += in[(t / 4) * 100 + t % 8];
  s += in[(t / 2) * 64 + t % 2];
  s += in[(t % 4) * 32];
  s += in[(t / 2) * 64];
  s += in[idx[t / 4] + t % 8];
  s += in[idx[t / 8] + t % 8];
  s += in[idx[(t + 3) / 8] + (t + 3) % 8];
  out[t] = s;
}
// CHECK-LABEL: kernel shapes
// CHECK-DAG: global load in[(t / 8) * 64 + t % 8]  stride 1  score 1
// CHECK-DAG: global load in[(t >> 3) * 8 + (t & 7)]  stride 1  score 1
// CHECK-DAG: global load wide[(t / 4) * 100 + t % 4]  stride 1  score 1
// CHECK-DAG: global load in[(t / 4) * 100 + t % 8]  stride unknown  score 0
// CHECK-DAG: global load in[(t / 2) * 64 + t % 2]  stride 4  score 0.1
// CHECK-DAG: global load in[(t % 4) * 32]  stride 32  score -0.5
// CHECK-DAG: global load in[(t / 2) * 64]  stride 64  score -0.5
// CHECK-DAG: global load in[idx[t / 4] + t % 8]  stride unknown  score 0
// CHECK-DAG: global load in[idx[t / 8] + t % 8]  stride 1  score 1
// CHECK-DAG: global load in[idx[(t + 3) / 8] + (t + 3) % 8]  stride unknown  score 0

// Shared memory: conflicts are known only where the groups' runs are contiguous.
__global__ void sharedGroups(float *out) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[(t / 8) * 8 + t % 8] = 1.0f;
  tile[(t / 8) * 33 + t % 8] = 2.0f;
  __syncthreads();
  out[t] = tile[t];
}
// CHECK-LABEL: kernel sharedGroups
// CHECK-DAG: shared store tile[(t / 8) * 8 + t % 8]  stride 1 {{.*}}bank 1-way
// CHECK-DAG: shared store tile[(t / 8) * 33 + t % 8]  stride unknown
