// The size expressions of task.json ("n * n", "rows * (cols + 1)"), evaluated
// against a size binding; errors are TaskErrors naming the expression.
#include "cudaperf/contracts/TaskSpec.h"

#include <cctype>
#include <string>

namespace cudaperf {

namespace {

// Recursive descent over: expr = term (('+'|'-') term)*; term = factor (('*'|'/'|'%') factor)*;
// factor = integer | name | '(' expr ')' | '-' factor.
class SizeExpression {
public:
  SizeExpression(const std::string &text, const SizeBinding &sizes) : text_(text), sizes_(sizes) {}

  std::int64_t evaluate() {
    const std::int64_t value = expression();
    skipSpace();
    if (position_ != text_.size())
      fail("unexpected '" + std::string(1, text_[position_]) + "'");
    return value;
  }

private:
  [[noreturn]] void fail(const std::string &why) const { throw TaskError("size expression '" + text_ + "': " + why); }
  void skipSpace() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }
  bool accept(char c) {
    skipSpace();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void checkOverflow(bool overflow) const {
    if (overflow)
      fail("overflows 64 bits");
  }
  // Each operand is evaluated before the overflow check, in a statement of its
  // own: argument evaluation order is unspecified (GCC and Clang differ).
  std::int64_t expression() {
    std::int64_t value = term();
    while (true) {
      if (accept('+')) {
        const std::int64_t right = term();
        checkOverflow(__builtin_add_overflow(value, right, &value));
      } else if (accept('-')) {
        const std::int64_t right = term();
        checkOverflow(__builtin_sub_overflow(value, right, &value));
      } else {
        return value;
      }
    }
  }
  std::int64_t term() {
    std::int64_t value = factor();
    while (true) {
      if (accept('*')) {
        const std::int64_t right = factor();
        checkOverflow(__builtin_mul_overflow(value, right, &value));
      } else if (accept('/')) {
        const std::int64_t divisor = factor();
        if (divisor == 0)
          fail("division by zero");
        value /= divisor;
      } else if (accept('%')) {
        const std::int64_t divisor = factor();
        if (divisor == 0)
          fail("division by zero");
        value %= divisor;
      } else {
        return value;
      }
    }
  }
  std::int64_t factor() {
    if (++depth_ > 64)
      fail("nested too deeply");
    skipSpace();
    if (accept('(')) {
      const std::int64_t value = expression();
      if (!accept(')'))
        fail("missing ')'");
      --depth_;
      return value;
    }
    if (accept('-')) {
      const std::int64_t value = -factor();
      --depth_;
      return value;
    }
    skipSpace();
    const std::size_t start = position_;
    if (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) {
      while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])))
        ++position_;
      const std::string digits = text_.substr(start, position_ - start);
      if (digits.size() > 18)
        fail("number too large");
      --depth_;
      return std::stoll(digits);
    }
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_'))
      ++position_;
    if (position_ == start)
      fail(position_ < text_.size() ? "unexpected '" + std::string(1, text_[position_]) + "'" : "unexpected end");
    const std::string name = text_.substr(start, position_ - start);
    auto it = sizes_.find(name);
    if (it == sizes_.end())
      fail("unknown size variable '" + name + "'");
    --depth_;
    return it->second;
  }

  const std::string &text_;
  const SizeBinding &sizes_;
  std::size_t position_ = 0;
  int depth_ = 0;
};

} // namespace

std::int64_t evaluateSizeExpression(const std::string &expression, const SizeBinding &sizes) {
  return SizeExpression(expression, sizes).evaluate();
}

} // namespace cudaperf
