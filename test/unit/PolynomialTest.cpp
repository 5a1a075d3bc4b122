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
