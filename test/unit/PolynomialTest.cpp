#include "Polynomial.h"

#include <gtest/gtest.h>

using namespace cudaperf::analysis;

namespace {

class PolynomialTest : public ::testing::Test {
protected:
  SymbolTable symbols;
  SymbolId tidX = symbols.builtin(SymbolKind::ThreadIdx, 0);
  SymbolId tidY = symbols.builtin(SymbolKind::ThreadIdx, 1);
  SymbolId bidX = symbols.builtin(SymbolKind::BlockIdx, 0);
  SymbolId bdimX = symbols.builtin(SymbolKind::BlockDim, 0);
};

TEST_F(PolynomialTest, GlobalIndexHasUnitLaneStride) {
  // blockIdx.x * blockDim.x + threadIdx.x
  Polynomial index = Polynomial::symbol(bidX) * Polynomial::symbol(bdimX) + Polynomial::symbol(tidX);
  auto stride = index.derivative(tidX);
  ASSERT_TRUE(stride);
  EXPECT_EQ(stride->constantValue(), 1);
  EXPECT_EQ(index.variance(symbols), Variance::LaneVarying);
  EXPECT_EQ(index.toString(symbols), "blockIdx.x*blockDim.x + threadIdx.x");
}

TEST_F(PolynomialTest, ParameterCoefficientIsSymbolic) {
  SymbolId columns = symbols.param("C");
  Polynomial index = Polynomial::symbol(tidX) * Polynomial::symbol(columns) + Polynomial::constant(3);
  auto stride = index.derivative(tidX);
  ASSERT_TRUE(stride);
  EXPECT_FALSE(stride->constantValue());
  EXPECT_EQ(stride->toString(symbols), "C");
  EXPECT_EQ(stride->variance(symbols), Variance::Uniform);
}

TEST_F(PolynomialTest, SquareOfLaneIsNotAffine) {
  Polynomial square = Polynomial::symbol(tidX) * Polynomial::symbol(tidX);
  EXPECT_FALSE(square.derivative(tidX));
}

TEST_F(PolynomialTest, ArithmeticCancelsTerms) {
  Polynomial a = Polynomial::symbol(tidX, 4) + Polynomial::constant(8);
  Polynomial b = Polynomial::symbol(tidX, 4);
  EXPECT_EQ((a - b).constantValue(), 8);
  EXPECT_TRUE((b - b).isZero());
  EXPECT_EQ((a.scaled(2)).linearCoefficient(tidX), 8);
}

TEST_F(PolynomialTest, ExactDivisionOnlyWhenEveryCoefficientDivides) {
  Polynomial p = Polynomial::symbol(tidX, 8) + Polynomial::constant(4);
  auto half = p.dividedExactly(4);
  ASSERT_TRUE(half);
  EXPECT_EQ(half->linearCoefficient(tidX), 2);
  EXPECT_FALSE(p.dividedExactly(8));
  EXPECT_FALSE(p.dividedExactly(0));
}

TEST_F(PolynomialTest, VarianceJoinsSymbols) {
  EXPECT_EQ(Polynomial::symbol(tidY).variance(symbols), Variance::WarpUniform);
  EXPECT_EQ(Polynomial::symbol(bidX).variance(symbols), Variance::Uniform);
  SymbolId loaded = symbols.opaque(Variance::LaneVarying, true, false);
  Polynomial gather = Polynomial::symbol(loaded);
  EXPECT_TRUE(gather.fromMemory(symbols));
  EXPECT_EQ((gather + Polynomial::symbol(bidX)).variance(symbols), Variance::LaneVarying);
}

TEST_F(PolynomialTest, OverflowIsDetectedNotWrapped) {
  Polynomial big = Polynomial::constant(INT64_MAX);
  EXPECT_TRUE((big + big).overflowed());
  EXPECT_TRUE((big + big).tooLarge());
  EXPECT_TRUE(big.scaled(4).overflowed());
}

TEST_F(PolynomialTest, TermCountIsBounded) {
  Polynomial sum;
  for (int i = 0; i < 8; ++i)
    sum = sum + Polynomial::symbol(symbols.opaque(Variance::Uniform, false, false));
  Polynomial product = sum * sum * sum;
  EXPECT_TRUE(product.tooLarge());
}

} // namespace

// Sub-warp lane groups: a value keeps the aligned lane groups it is constant on.
TEST(PolynomialLaneGroups, AValueIsConstantOnTheSmallestGroupOfItsLaneVaryingSymbols) {
  SymbolTable symbols;
  const SymbolId tidX = symbols.builtin(SymbolKind::ThreadIdx, 0);
  const SymbolId group8 = symbols.laneSplit(8, false);
  const SymbolId within8 = symbols.laneSplit(8, true);
  EXPECT_EQ(symbols.laneSplit(8, false), group8); // one symbol per size and side
  EXPECT_NE(symbols.laneSplit(4, false), group8);
  EXPECT_EQ(symbols[group8].name, "threadIdx.x/8");
  EXPECT_EQ(symbols[within8].name, "threadIdx.x%8");
  const SymbolId rowStart = symbols.opaque(Variance::LaneVarying, true, false, "load rowPtr", 8);
  const SymbolId bid = symbols.builtin(SymbolKind::BlockIdx, 0);
  EXPECT_EQ(Polynomial::symbol(bid).groupLanes(symbols), 32u); // uniform: any group
  EXPECT_EQ((Polynomial::symbol(group8, 4) + Polynomial::symbol(bid)).groupLanes(symbols), 8u);
  EXPECT_EQ(Polynomial::symbol(rowStart).groupLanes(symbols), 8u);
  EXPECT_EQ((Polynomial::symbol(rowStart) + Polynomial::symbol(within8)).groupLanes(symbols), 1u);
  EXPECT_EQ(Polynomial::symbol(tidX).groupLanes(symbols), 1u);
  // Both split symbols vary across a warp: a branch on either diverges.
  EXPECT_EQ(Polynomial::symbol(group8).variance(symbols), Variance::LaneVarying);
  EXPECT_EQ(Polynomial::symbol(within8).variance(symbols), Variance::LaneVarying);
  // A warp-uniform opaque value is not a lane group: it stays 32.
  EXPECT_EQ(symbols[symbols.opaque(Variance::WarpUniform, false, false, "w", 4)].groupLanes, 32u);
}
