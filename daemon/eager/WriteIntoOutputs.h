// Eager's results written straight into the task's output buffers. A traced
// module returns fresh tensors, which the runtime then had to copy into the
// judge's buffers: on a one-input elementwise problem that copy is as much
// memory traffic as eager's own kernel, and doubled eager's time (a plain
// kernel earned up to 2x for free). Where the operator that produces a
// result has an out= overload (aten::add.out, aten::mm.out, ...), the graph
// is rewritten to call that overload on a module attribute the runtime sets
// to the output buffer before each call: the last kernel writes the output
// itself, as eager's own does into its own tensor.
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

namespace cudaperf::eager {

// The attribute of `module` a rewritten output i reads its buffer from.
std::string outputAttribute(std::size_t i);

// Rewrites the graph of `module`'s forward (not yet run) for every result
// whose producing node has an out= overload; returns, per result in order,
// whether it is now written into its output (the others are still copied).
// Results produced by views, by prim nodes or returned twice are left alone.
std::vector<bool> writeIntoOutputs(torch::jit::Module &module, const std::vector<at::Tensor> &outputs);

} // namespace cudaperf::eager
