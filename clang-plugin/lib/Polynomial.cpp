#include "Polynomial.h"

#include <algorithm>

namespace cudaperf::analysis {

namespace {
const char *kDims = "xyz";

bool addOverflows(std::int64_t a, std::int64_t b, std::int64_t &out) { return __builtin_add_overflow(a, b, &out); }
bool mulOverflows(std::int64_t a, std::int64_t b, std::int64_t &out) { return __builtin_mul_overflow(a, b, &out); }
} // namespace

SymbolTable::SymbolTable() {
  // Ids 0..11: threadIdx.xyz, blockIdx.xyz, blockDim.xyz, gridDim.xyz.
  const char *names[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  for (int kind = 0; kind < 4; ++kind)
    for (int dim = 0; dim < 3; ++dim) {
      Symbol symbol;
      symbol.kind = static_cast<SymbolKind>(kind);
      symbol.dimension = dim;
      symbol.name = std::string(names[kind]) + "." + kDims[dim];
      // threadIdx.y/z are warp-uniform under the documented assumption that
      // blockDim.x is a multiple of 32; threadIdx.x is the lane.
      symbol.variance = kind == 0 ? (dim == 0 ? Variance::LaneVarying : Variance::WarpUniform) : Variance::Uniform;
      symbols_.push_back(symbol);
    }
}

SymbolId SymbolTable::builtin(SymbolKind kind, int dimension) const { return static_cast<int>(kind) * 3 + dimension; }

SymbolId SymbolTable::param(const std::string &name) {
  if (auto it = params_.find(name); it != params_.end())
    return it->second;
  Symbol symbol;
  symbol.kind = SymbolKind::Param;
  symbol.name = name;
  symbol.fromParam = true;
  symbols_.push_back(symbol);
  const SymbolId id = static_cast<SymbolId>(symbols_.size() - 1);
  params_[name] = id;
  return id;
}

SymbolId SymbolTable::loopCounter(const std::string &name) {
  Symbol symbol;
  symbol.kind = SymbolKind::LoopCounter;
  symbol.name = "iter(" + name + ")";
  symbols_.push_back(symbol);
  return static_cast<SymbolId>(symbols_.size() - 1);
}

SymbolId SymbolTable::opaque(Variance variance, bool fromMemory, bool fromParam, const std::string &name,
                             unsigned groupLanes) {
  Symbol symbol;
  symbol.kind = SymbolKind::Opaque;
  symbol.name = name;
  symbol.variance = variance;
  symbol.fromMemory = fromMemory;
  symbol.fromParam = fromParam;
  symbol.groupLanes = variance == Variance::LaneVarying ? std::clamp(groupLanes, 1u, 16u) : 32u;
  symbols_.push_back(symbol);
  return static_cast<SymbolId>(symbols_.size() - 1);
}

SymbolId SymbolTable::laneSplit(unsigned lanes, bool inGroup) {
  if (auto it = laneSplits_.find({lanes, inGroup}); it != laneSplits_.end())
    return it->second;
  Symbol symbol;
  symbol.kind = inGroup ? SymbolKind::LaneInGroup : SymbolKind::LaneGroup;
  symbol.dimension = static_cast<int>(lanes);
  symbol.name = std::string("threadIdx.x") + (inGroup ? "%" : "/") + std::to_string(lanes);
  symbol.variance = Variance::LaneVarying;
  symbol.groupLanes = inGroup ? 1 : lanes;
  symbols_.push_back(symbol);
  const SymbolId id = static_cast<SymbolId>(symbols_.size() - 1);
  laneSplits_[{lanes, inGroup}] = id;
  return id;
}

Polynomial Polynomial::constant(std::int64_t value) {
  Polynomial p;
  p.addTerm({}, value);
  return p;
}

Polynomial Polynomial::symbol(SymbolId id, std::int64_t coefficient) {
  Polynomial p;
  p.addTerm({id}, coefficient);
  return p;
}

void Polynomial::addTerm(const Monomial &monomial, std::int64_t coefficient) {
  if (coefficient == 0)
    return;
  auto [it, inserted] = terms_.emplace(monomial, coefficient);
  if (!inserted) {
    std::int64_t sum = 0;
    if (addOverflows(it->second, coefficient, sum))
      overflow_ = true;
    it->second = sum;
    if (it->second == 0)
      terms_.erase(it);
  }
}

bool Polynomial::isConstant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }

std::optional<std::int64_t> Polynomial::constantValue() const {
  if (terms_.empty())
    return 0;
  if (isConstant())
    return terms_.begin()->second;
  return std::nullopt;
}

bool Polynomial::tooLarge() const {
  if (overflow_ || terms_.size() > kMaxTerms)
    return true;
  for (const auto &[monomial, coefficient] : terms_)
    if (monomial.size() > kMaxDegree)
      return true;
  return false;
}

Polynomial Polynomial::operator+(const Polynomial &other) const {
  Polynomial result = *this;
  result.overflow_ |= other.overflow_;
  for (const auto &[monomial, coefficient] : other.terms_)
    result.addTerm(monomial, coefficient);
  return result;
}

Polynomial Polynomial::operator-() const { return scaled(-1); }

Polynomial Polynomial::operator-(const Polynomial &other) const { return *this + (-other); }

Polynomial Polynomial::scaled(std::int64_t factor) const {
  Polynomial result;
  result.overflow_ = overflow_;
  for (const auto &[monomial, coefficient] : terms_) {
    std::int64_t product = 0;
    if (mulOverflows(coefficient, factor, product))
      result.overflow_ = true;
    result.addTerm(monomial, product);
  }
  return result;
}

Polynomial Polynomial::operator*(const Polynomial &other) const {
  Polynomial result;
  result.overflow_ = overflow_ || other.overflow_;
  for (const auto &[left, leftCoefficient] : terms_)
    for (const auto &[right, rightCoefficient] : other.terms_) {
      Monomial monomial = left;
      monomial.insert(monomial.end(), right.begin(), right.end());
      std::sort(monomial.begin(), monomial.end());
      std::int64_t product = 0;
      if (mulOverflows(leftCoefficient, rightCoefficient, product))
        result.overflow_ = true;
      result.addTerm(monomial, product);
      if (result.terms_.size() > kMaxTerms) {
        result.overflow_ = true;
        return result;
      }
    }
  return result;
}

std::optional<Polynomial> Polynomial::dividedExactly(std::int64_t divisor) const {
  if (divisor == 0)
    return std::nullopt;
  Polynomial result;
  for (const auto &[monomial, coefficient] : terms_) {
    if (coefficient % divisor != 0)
      return std::nullopt;
    result.addTerm(monomial, coefficient / divisor);
  }
  return result;
}

std::optional<Polynomial> Polynomial::derivative(SymbolId id) const {
  Polynomial result;
  for (const auto &[monomial, coefficient] : terms_) {
    const auto count = std::count(monomial.begin(), monomial.end(), id);
    if (count == 0)
      continue;
    if (count > 1)
      return std::nullopt;
    Monomial rest;
    for (SymbolId symbol : monomial)
      if (symbol != id)
        rest.push_back(symbol);
    result.addTerm(rest, coefficient);
  }
  return result;
}

bool Polynomial::contains(SymbolId id) const {
  for (const auto &[monomial, coefficient] : terms_)
    if (std::find(monomial.begin(), monomial.end(), id) != monomial.end())
      return true;
  return false;
}

bool Polynomial::containsKind(const SymbolTable &table, SymbolKind kind) const {
  for (const auto &[monomial, coefficient] : terms_)
    for (SymbolId symbol : monomial)
      if (table[symbol].kind == kind)
        return true;
  return false;
}

Variance Polynomial::variance(const SymbolTable &table) const {
  Variance result = Variance::Uniform;
  for (const auto &[monomial, coefficient] : terms_)
    for (SymbolId symbol : monomial)
      result = join(result, table[symbol].variance);
  return result;
}

unsigned Polynomial::groupLanes(const SymbolTable &table) const {
  unsigned lanes = 32;
  for (const auto &[monomial, coefficient] : terms_)
    for (SymbolId symbol : monomial)
      if (table[symbol].variance == Variance::LaneVarying)
        lanes = std::min(lanes, table[symbol].groupLanes);
  return lanes;
}

bool Polynomial::fromMemory(const SymbolTable &table) const {
  for (const auto &[monomial, coefficient] : terms_)
    for (SymbolId symbol : monomial)
      if (table[symbol].fromMemory)
        return true;
  return false;
}

bool Polynomial::fromParam(const SymbolTable &table) const {
  for (const auto &[monomial, coefficient] : terms_)
    for (SymbolId symbol : monomial)
      if (table[symbol].fromParam)
        return true;
  return false;
}

std::int64_t Polynomial::linearCoefficient(SymbolId id) const {
  auto it = terms_.find(Monomial{id});
  return it == terms_.end() ? 0 : it->second;
}

Polynomial Polynomial::without(SymbolId id) const {
  Polynomial result;
  for (const auto &[monomial, coefficient] : terms_)
    if (std::find(monomial.begin(), monomial.end(), id) == monomial.end())
      result.addTerm(monomial, coefficient);
  return result;
}

std::string Polynomial::toString(const SymbolTable &table) const {
  if (terms_.empty())
    return "0";
  std::string out;
  // Highest-degree terms first reads naturally: "C*blockIdx.x + threadIdx.x + 1".
  std::vector<std::pair<Monomial, std::int64_t>> ordered(terms_.begin(), terms_.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
  for (const auto &[monomial, coefficient] : ordered) {
    std::int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
    if (out.empty())
      out += coefficient < 0 ? "-" : "";
    else
      out += coefficient < 0 ? " - " : " + ";
    std::string product;
    if (magnitude != 1 || monomial.empty())
      product = std::to_string(magnitude);
    for (SymbolId symbol : monomial) {
      if (!product.empty())
        product += "*";
      product += table[symbol].name;
    }
    out += product;
  }
  return out;
}

} // namespace cudaperf::analysis
