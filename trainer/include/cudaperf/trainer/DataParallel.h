// Data-parallel training over several processes through LibTorch's c10d: a
// TCP store hosted by rank 0 for the rendezvous and a Gloo process group for
// the collectives (sums of gradients and of the step's statistics, rank 0's
// weights to every rank). Where the processes stand comes from torchrun's
// variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), so a
// run is started by torchrun, by `cudaperf-train grpo --nproc N`, or by hand.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::trainer {

struct ProcessPlace {
  int rank = 0, worldSize = 1, localRank = 0;
  std::string masterAddress = "127.0.0.1";
  int masterPort = 29500;
  // nullopt when WORLD_SIZE is unset or 1 (one process: no group); an
  // inconsistent or malformed variable is an std::invalid_argument naming it.
  static std::optional<ProcessPlace> fromEnvironment();
};

// True where this build has a process group (LibTorch's Gloo backend and
// Gloo's headers, libgloo-dev): otherwise DataParallel's constructor throws.
bool dataParallelAvailable();

class DataParallel {
public:
  // Joins the group: rank 0 hosts the store. A rank waits up to `timeout`
  // for the others, at the start and in every collective: long, since ranks
  // legitimately drift apart for minutes (one rank's groups taking every
  // turn, rank 0 writing a large checkpoint); a rank that fails is stopped
  // by the launcher (--nproc, torchrun), which ends the others.
  explicit DataParallel(const ProcessPlace &place, std::chrono::seconds timeout = std::chrono::hours(2));
  ~DataParallel();
  DataParallel(const DataParallel &) = delete;
  DataParallel &operator=(const DataParallel &) = delete;

  int rank() const { return place_.rank; }
  int size() const { return place_.worldSize; }
  bool leader() const { return place_.rank == 0; }
  // Whether this rank owns item `index` of a list every rank holds whole:
  // index % size == rank (the prompts of a GRPO step).
  bool owns(std::size_t index) const { return static_cast<int>(index % static_cast<std::size_t>(size())) == rank(); }

  // In place, over all ranks: the sum (the largest) of each value.
  void sum(std::vector<double> &values);
  void maximum(std::vector<double> &values);
  // Each parameter's gradient summed over ranks, as one flat f32 buffer. A
  // gradient undefined here but defined on another rank counts as zeros;
  // one undefined everywhere stays undefined (the optimizer skips it alike).
  void sumGradients(const std::vector<at::Tensor> &parameters);
  // Rank 0's values into every rank's tensors (same shapes on every rank).
  void broadcastFromLeader(const std::vector<at::Tensor> &tensors);
  void barrier();

private:
  struct Group;
  ProcessPlace place_;
  std::unique_ptr<Group> group_;
};

} // namespace cudaperf::trainer
