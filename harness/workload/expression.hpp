#pragma once

// The integer expression language of workload counts, launch plans and restrictions (SPEC §2):
//   integers, identifiers (case values, tunables, numeric defines), + - * / % unary -, parentheses,
//   ceil_div(a,b), min(a,b,...), max(a,b,...), comparisons (< <= > >= == !=) and && || ! giving 0/1.
// Arithmetic is on int64 with C++ truncating division. Division or modulo by zero, overflow and
// unknown identifiers are errors that name the expression. Documented in docs/workload-format.md.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// Values bound to identifiers during evaluation.
using variables = std::map<std::string, std::int64_t, std::less<>>;

/// A parse or evaluation error; what() is one line quoting the expression, e.g.
/// "expression 'M*/K': unexpected '/' at column 3".
class expression_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class expression
{
public:
    /// The expression "0".
    expression();
    /// The longest text parse accepts, and the deepest nesting of parentheses, calls and unary
    /// operators: expressions come from workloads and from models' launch plans, and both bound the
    /// recursion of parsing, evaluating and freeing the tree.
    static constexpr std::size_t max_length = 4096;
    static constexpr int max_nesting = 64;

    /// Parses text; throws expression_error on a syntax error, a text longer than max_length or a
    /// nesting deeper than max_nesting.
    static expression parse(std::string_view text);
    /// A constant.
    static expression constant(std::int64_t value);

    /// Evaluates with the given bindings; throws expression_error on an unknown identifier,
    /// division by zero or overflow.
    std::int64_t evaluate(const variables& vars) const;

    const std::string& text() const { return text_; }
    /// Identifiers the expression refers to (sorted, unique).
    std::vector<std::string> identifiers() const;

    struct node;

private:
    std::string text_;
    std::shared_ptr<const node> root_;
};

}  // namespace warpsmith
