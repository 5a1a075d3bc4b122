// The JSON document of the cudaperf.features/1 contract, key by key.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

void run(const float *in, float *out, int n) { scale<<<(n + 127) / 128, 128>>>(in, out, n); }
// CHECK: {
// CHECK-NEXT: "schema": "cudaperf.features/1",
// CHECK-NEXT: "file": "{{.*}}json-contract.cu",
// CHECK-NEXT: "arch": "sm_90",
// CHECK-NEXT: "kernels": [
// CHECK-NEXT: {
// CHECK-NEXT: "name": "scale",
// CHECK-NEXT: "location": "{{.*}}json-contract.cu:5:17",
// CHECK-NEXT: "template_pattern": false,
// CHECK-NEXT: "features": {
// CHECK-NEXT: "coal": 1,
// CHECK-NEXT: "ai": 0.125,
// CHECK-NEXT: "occ": 1,
// CHECK-NEXT: "div": 0,
// CHECK-NEXT: "xfer": 0,
// CHECK-NEXT: "atomics": 0,
// CHECK-NEXT: "sync": 0,
// CHECK-NEXT: "kernels": 1,
// CHECK-NEXT: "tpb": 128,
// CHECK-NEXT: "gmem": 8,
// CHECK-NEXT: "ops": 1
// CHECK-NEXT: },
// CHECK-NEXT: "features_unknown": [
// CHECK-NEXT: "blocks",
// CHECK-NEXT: "threads"
// CHECK-NEXT: ],
// CHECK-NEXT: "extended": {
// CHECK-NEXT: "bank": 1,
// CHECK-NEXT: "vec": 4,
// CHECK-NEXT: "reuse": 0,
// CHECK-NEXT: "warp": 0,
// CHECK-NEXT: "grid_stride": 0,
// CHECK-NEXT: "blocks": 0,
// CHECK-NEXT: "threads": 0
// CHECK-NEXT: },
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {
// CHECK-NEXT: "location": "{{.*}}json-contract.cu:8:21",
// CHECK-NEXT: "space": "global",
// CHECK-NEXT: "kind": "load",
// CHECK-NEXT: "variable": "in",
// CHECK-NEXT: "expression": "in[i]",
// CHECK-NEXT: "bytes": 4,
// CHECK-NEXT: "stride_class": "constant",
// CHECK-NEXT: "stride": 1,
// CHECK-NEXT: "stride_bytes": 4,
// CHECK-NEXT: "score": 1,
// CHECK: "branches": [
// CHECK-NEXT: {
// CHECK-NEXT: "location": "{{.*}}json-contract.cu:7:3",
// CHECK-NEXT: "kind": "if",
// CHECK-NEXT: "class": "guard",
// CHECK: "shared": {
// CHECK: "launch_bounds": {
// CHECK: "occupancy": {
// CHECK: "extras": {
// CHECK: "diagnostics": []
// CHECK: "launches": [
// CHECK: "kernel": "scale",
// CHECK: "dynamic_shared_bytes": 0,
// CHECK: "features": {
// CHECK-NEXT: "coal": 1,
