// Integer polynomials over symbolic program values: the affine (and slightly
// more) form of an address or index. Clang-free, so it is unit-tested alone.
//
// A symbol is a thread/block builtin (threadIdx.x, blockIdx.y, ...), a kernel
// scalar parameter, a loop iteration counter, or an opaque value the analysis
// could not express (a load, a division it cannot simplify). Each symbol knows
// how it varies across the 32 lanes of a warp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::analysis {

// How a value varies across the lanes of one warp (ordered: join = max).
enum class Variance : std::uint8_t {
  Uniform = 0,     // same for every thread of the block (params, blockIdx, loop counters)
  WarpUniform = 1, // same within a warp (threadIdx.x / 32, threadIdx.y with blockDim.x % 32 == 0)
  LaneVarying = 2, // differs between lanes (threadIdx.x, values loaded at lane-varying addresses)
};

inline Variance join(Variance a, Variance b) { return a > b ? a : b; }

// LaneInGroup and LaneGroup split the lane into aligned groups of C lanes
// (C = `dimension`, a power of two below 32): `threadIdx.x % C` is the lane
// within its group, `threadIdx.x / C` the group (sub-warp kernels: a row per
// 8 lanes). Both are exact under the assumption that a warp's first
// threadIdx.x is a multiple of 32.
enum class SymbolKind : std::uint8_t {
  ThreadIdx,
  BlockIdx,
  BlockDim,
  GridDim,
  Param,
  LoopCounter,
  Opaque,
  LaneInGroup,
  LaneGroup
};

struct Symbol {
  SymbolKind kind = SymbolKind::Opaque;
  int dimension = 0; // 0,1,2 = x,y,z for the builtins
  std::string name;  // printable form
  Variance variance = Variance::Uniform;
  bool fromMemory = false; // value came from a memory load (data, not index arithmetic)
  bool fromParam = false;  // value derives from a kernel parameter (a problem size)
  // For a LaneVarying symbol: aligned groups of this many consecutive lanes
  // share its value (1: it may differ from lane to lane; a row start loaded
  // at `row_ptr[threadIdx.x / 8]` is the same for 8 lanes).
  unsigned groupLanes = 1;
};

using SymbolId = int;

class SymbolTable {
public:
  SymbolTable();
  SymbolId builtin(SymbolKind kind, int dimension) const; // ThreadIdx..GridDim
  SymbolId param(const std::string &name);
  SymbolId loopCounter(const std::string &name);
  SymbolId opaque(Variance variance, bool fromMemory, bool fromParam, const std::string &name = "?",
                  unsigned groupLanes = 1);
  // threadIdx.x % lanes (inGroup) or threadIdx.x / lanes: one symbol per size.
  SymbolId laneSplit(unsigned lanes, bool inGroup);
  const Symbol &operator[](SymbolId id) const { return symbols_.at(static_cast<std::size_t>(id)); }
  std::size_t size() const { return symbols_.size(); }

private:
  std::vector<Symbol> symbols_;
  std::map<std::string, SymbolId> params_;
  std::map<std::pair<unsigned, bool>, SymbolId> laneSplits_;
};

// A product of symbols, kept sorted (repeats allowed: x*x).
using Monomial = std::vector<SymbolId>;

class Polynomial {
public:
  // Beyond these sizes a value is not worth tracking; callers turn it opaque.
  static constexpr std::size_t kMaxTerms = 48;
  static constexpr std::size_t kMaxDegree = 4;

  Polynomial() = default;
  static Polynomial constant(std::int64_t value);
  static Polynomial symbol(SymbolId id, std::int64_t coefficient = 1);

  bool isConstant() const;
  std::optional<std::int64_t> constantValue() const;
  bool isZero() const { return terms_.empty(); }
  bool tooLarge() const;
  bool overflowed() const { return overflow_; }

  Polynomial operator+(const Polynomial &other) const;
  Polynomial operator-(const Polynomial &other) const;
  Polynomial operator*(const Polynomial &other) const;
  Polynomial operator-() const;
  Polynomial scaled(std::int64_t factor) const;
  // Exact division when every coefficient is divisible; nullopt otherwise.
  std::optional<Polynomial> dividedExactly(std::int64_t divisor) const;

  // Partial derivative with respect to one symbol. nullopt when the symbol
  // appears with degree > 1 (not affine in it).
  std::optional<Polynomial> derivative(SymbolId id) const;
  bool contains(SymbolId id) const;
  bool containsKind(const SymbolTable &table, SymbolKind kind) const;
  Variance variance(const SymbolTable &table) const;
  // The largest aligned lane groups within which the value cannot change: the
  // least groupLanes of its LaneVarying symbols, 32 when it has none.
  unsigned groupLanes(const SymbolTable &table) const;
  bool fromMemory(const SymbolTable &table) const;
  bool fromParam(const SymbolTable &table) const;
  // Coefficient of the monomial made of `id` alone (the linear term).
  std::int64_t linearCoefficient(SymbolId id) const;
  // The polynomial with every term that mentions `id` removed.
  Polynomial without(SymbolId id) const;

  std::string toString(const SymbolTable &table) const;
  const std::map<Monomial, std::int64_t> &terms() const { return terms_; }
  bool operator==(const Polynomial &other) const { return terms_ == other.terms_; }

private:
  void addTerm(const Monomial &monomial, std::int64_t coefficient);
  std::map<Monomial, std::int64_t> terms_; // never holds a zero coefficient
  bool overflow_ = false;
};

} // namespace cudaperf::analysis
