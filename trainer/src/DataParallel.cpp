#include "cudaperf/trainer/DataParallel.h"

#include <torch/torch.h>

#ifdef CUDAPERF_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

#include <cstdlib>
#include <stdexcept>

namespace cudaperf::trainer {

namespace {

std::optional<long> integerVariable(const char *name) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return std::nullopt;
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0')
    throw std::invalid_argument(std::string(name) + ": expected an integer, got '" + text + "'");
  return value;
}

} // namespace

std::optional<ProcessPlace> ProcessPlace::fromEnvironment() {
  const auto world = integerVariable("WORLD_SIZE");
  if (!world || *world <= 1)
    return std::nullopt;
  ProcessPlace place;
  place.worldSize = static_cast<int>(*world);
  const auto rank = integerVariable("RANK");
  if (!rank || *rank < 0 || *rank >= *world)
    throw std::invalid_argument("RANK: expected 0 .. WORLD_SIZE - 1 (" + std::to_string(*world - 1) + ")");
  place.rank = static_cast<int>(*rank);
  place.localRank = static_cast<int>(integerVariable("LOCAL_RANK").value_or(*rank));
  if (const char *address = std::getenv("MASTER_ADDR"); address && *address)
    place.masterAddress = address;
  const long port = integerVariable("MASTER_PORT").value_or(place.masterPort);
  if (port <= 0 || port > 65535)
    throw std::invalid_argument("MASTER_PORT: expected a port, got " + std::to_string(port));
  place.masterPort = static_cast<int>(port);
  return place;
}

#ifdef CUDAPERF_GLOO

bool dataParallelAvailable() { return true; }

struct DataParallel::Group {
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
};

DataParallel::DataParallel(const ProcessPlace &place, std::chrono::seconds timeout)
    : place_(place), group_(std::make_unique<Group>()) {
  c10d::TCPStoreOptions storeOptions;
  storeOptions.port = static_cast<std::uint16_t>(place.masterPort);
  storeOptions.isServer = place.rank == 0;
  storeOptions.numWorkers = static_cast<std::size_t>(place.worldSize);
  storeOptions.timeout = timeout;
  auto store = c10::make_intrusive<c10d::TCPStore>(place.masterAddress, storeOptions);
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // One host (the ranks of a machine's GPUs, or a CPU test): loopback. Across
  // hosts: the interface GLOO_SOCKET_IFNAME names, else the hostname's address.
  const char *interface = std::getenv("GLOO_SOCKET_IFNAME");
  const bool loopback = place.masterAddress == "localhost" || place.masterAddress.rfind("127.", 0) == 0;
  options->devices.push_back(interface && *interface ? c10d::ProcessGroupGloo::createDeviceForInterface(interface)
                             : loopback              ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                                     : c10d::ProcessGroupGloo::createDefaultDevice());
  group_->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, place.rank, place.worldSize, options);
}

namespace {

void reduceInPlace(c10d::ProcessGroupGloo &group, std::vector<double> &values, c10d::ReduceOp op) {
  if (values.empty())
    return;
  std::vector<at::Tensor> tensors{torch::tensor(values, torch::kFloat64)};
  c10d::AllreduceOptions options;
  options.reduceOp = op;
  group.allreduce(tensors, options)->wait();
  std::copy(tensors[0].data_ptr<double>(), tensors[0].data_ptr<double>() + values.size(), values.begin());
}

} // namespace

void DataParallel::sum(std::vector<double> &values) { reduceInPlace(*group_->gloo, values, c10d::ReduceOp::SUM); }

void DataParallel::maximum(std::vector<double> &values) { reduceInPlace(*group_->gloo, values, c10d::ReduceOp::MAX); }

void DataParallel::sumGradients(const std::vector<at::Tensor> &parameters) {
  torch::NoGradGuard noGrad;
  // Which gradients exist anywhere: those take part, zeros where missing.
  std::vector<double> defined;
  for (const auto &p : parameters)
    defined.push_back(p.grad().defined() ? 1.0 : 0.0);
  sum(defined);
  std::vector<at::Tensor> pieces;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (defined[i] > 0) {
      const at::Tensor &p = parameters[i];
      pieces.push_back(p.grad().defined() ? p.grad().to(torch::kCPU, torch::kFloat32).reshape({-1})
                                          : torch::zeros({p.numel()}, torch::kFloat32));
    }
  if (pieces.empty())
    return;
  std::vector<at::Tensor> flat{torch::cat(pieces)};
  group_->gloo->allreduce(flat)->wait(); // a sum
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (defined[i] > 0) {
      at::Tensor p = parameters[i];
      const auto summed = flat[0].narrow(0, offset, p.numel()).view(p.sizes()).to(p.device(), p.scalar_type());
      offset += p.numel();
      if (p.grad().defined())
        p.mutable_grad().copy_(summed);
      else
        p.mutable_grad() = summed.clone();
    }
}

void DataParallel::broadcastFromLeader(const std::vector<at::Tensor> &tensors) {
  torch::NoGradGuard noGrad;
  for (const auto &tensor : tensors) {
    std::vector<at::Tensor> buffer{tensor.detach().to(torch::kCPU).contiguous().clone()};
    group_->gloo->broadcast(buffer)->wait(); // root 0 by default
    at::Tensor target = tensor.detach();
    target.copy_(buffer[0]);
  }
}

void DataParallel::barrier() { group_->gloo->barrier()->wait(); }

#else

bool dataParallelAvailable() { return false; }

struct DataParallel::Group {};

DataParallel::DataParallel(const ProcessPlace &place, std::chrono::seconds) : place_(place) {
  throw std::runtime_error("this cudaperf-train was built without a process group (LibTorch's Gloo backend with "
                           "Gloo's headers, Debian's libgloo-dev): it runs one process only");
}

void DataParallel::sum(std::vector<double> &) {}
void DataParallel::maximum(std::vector<double> &) {}
void DataParallel::sumGradients(const std::vector<at::Tensor> &) {}
void DataParallel::broadcastFromLeader(const std::vector<at::Tensor> &) {}
void DataParallel::barrier() {}

#endif

DataParallel::~DataParallel() = default;

} // namespace cudaperf::trainer
