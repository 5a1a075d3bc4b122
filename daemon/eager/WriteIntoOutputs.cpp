#include "WriteIntoOutputs.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

namespace cudaperf::eager {

namespace {

namespace jit = torch::jit;

// The out= overload of the node's operator: the same leading arguments (by
// name), then a single written `out` tensor.
const jit::Operator *outOverload(const jit::Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema)
    return nullptr;
  const auto &arguments = schema->arguments();
  for (const auto &candidate : jit::getAllOperatorsFor(node->kind())) {
    const c10::FunctionSchema &out = candidate->schema();
    const auto &outArguments = out.arguments();
    if (outArguments.size() != arguments.size() + 1 || out.returns().size() != 1)
      continue;
    const c10::Argument &last = outArguments.back();
    if (last.name() != "out" || !last.alias_info() || !last.alias_info()->isWrite())
      continue;
    bool same = true;
    for (std::size_t k = 0; k < arguments.size() && same; ++k)
      same = outArguments[k].name() == arguments[k].name() &&
             outArguments[k].type()->kind() == arguments[k].type()->kind();
    if (same)
      return candidate.get();
  }
  return nullptr;
}

} // namespace

std::string outputAttribute(std::size_t i) { return "cudaperf_output_" + std::to_string(i); }

std::vector<bool> writeIntoOutputs(jit::Module &module, const std::vector<at::Tensor> &outputs) {
  std::vector<bool> written(outputs.size(), false);
  std::shared_ptr<jit::Graph> graph = module.get_method("forward").graph();
  if (graph->outputs().size() != 1 || graph->inputs().empty())
    return written;
  // The importer's graphs return a tuple of the results (TupleConstruct).
  jit::Node *tuple = graph->outputs()[0]->node();
  std::vector<jit::Value *> results;
  if (tuple->kind() == c10::prim::TupleConstruct)
    results.assign(tuple->inputs().begin(), tuple->inputs().end());
  else
    results.push_back(graph->outputs()[0]);
  if (results.size() != outputs.size())
    return written;
  jit::Value *self = graph->inputs()[0];
  for (std::size_t i = 0; i < results.size(); ++i) {
    jit::Value *result = results[i];
    jit::Node *producer = result->node();
    // Used once (the return), by a node of one output: otherwise writing it
    // into the buffer early could be read back by a later operator.
    if (result->uses().size() != 1 || producer->outputs().size() != 1 || !producer->kind().is_aten())
      continue;
    const jit::Operator *overload = outOverload(producer);
    if (!overload)
      continue;
    module.register_attribute(outputAttribute(i), c10::TensorType::get(), outputs[i]);
    jit::Node *buffer = graph->createGetAttr(self, outputAttribute(i));
    buffer->insertAfter(producer);
    jit::Node *into = graph->create(producer->kind(), 1);
    for (jit::Value *input : producer->inputs())
      into->addInput(input);
    into->addInput(buffer->output());
    into->output()->setType(result->type());
    into->insertAfter(buffer);
    if (!into->maybeOperator() || into->getOperator().schema().overload_name() != overload->schema().overload_name()) {
      into->destroy(); // resolves to another overload: left as it was
      buffer->destroy();
      // The attribute stays (registered), but not the output-sized tensor: an empty one of its type (an
      // undefined tensor would break the graph executor, which looks at every tensor attribute).
      module.setattr(outputAttribute(i), outputs[i].new_empty({0}));
      continue;
    }
    result->replaceAllUsesWith(into->output());
    producer->destroy();
    written[i] = true;
  }
  return written;
}

} // namespace cudaperf::eager
