// The integer expression language: precedence, functions, comparisons, identifiers, and the exact
// one-line errors for syntax, unknown names, division by zero and overflow.

#include "harness/workload/expression.hpp"
#include "tests/harness/workload/workload_test_util.hpp"

#include <boost/test/unit_test.hpp>

#include <limits>

using namespace warpsmith;
using warpsmith::test::error_of;

namespace
{

std::int64_t eval(std::string_view text, const variables& vars = {})
{
    return expression::parse(text).evaluate(vars);
}

std::string parse_error(std::string_view text)
{
    return error_of<expression_error>([&] { (void)expression::parse(text); });
}

std::string eval_error(std::string_view text, const variables& vars = {})
{
    const auto e = expression::parse(text);
    return error_of<expression_error>([&] { (void)e.evaluate(vars); });
}

constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

}  // namespace

BOOST_AUTO_TEST_SUITE(expression_suite)

BOOST_AUTO_TEST_CASE(arithmetic_and_precedence)
{
    BOOST_TEST(eval("42") == 42);
    BOOST_TEST(eval("2+3*4") == 14);
    BOOST_TEST(eval("(2+3)*4") == 20);
    BOOST_TEST(eval("10-4-3") == 3);  // left associative
    BOOST_TEST(eval("100/10/5") == 2);
    BOOST_TEST(eval("2*3%4") == 2);  // (2*3)%4
    BOOST_TEST(eval("7%4") == 3);
    BOOST_TEST(eval("-7/2") == -3);  // C++ truncating division
    BOOST_TEST(eval("7/-2") == -3);
    BOOST_TEST(eval("-7%2") == -1);
    BOOST_TEST(eval("7%-2") == 1);
    BOOST_TEST(eval("- -3") == 3);
    BOOST_TEST(eval("-(2+3)*2") == -10);
    BOOST_TEST(eval("  ( 1 +\t2 )\n* 3 ") == 9);
    BOOST_TEST(eval("9223372036854775807") == int64_max);
}

BOOST_AUTO_TEST_CASE(comparisons_and_logic)
{
    BOOST_TEST(eval("1<2") == 1);
    BOOST_TEST(eval("2<2") == 0);
    BOOST_TEST(eval("2<=2") == 1);
    BOOST_TEST(eval("3>2") == 1);
    BOOST_TEST(eval("2>=3") == 0);
    BOOST_TEST(eval("4==4") == 1);
    BOOST_TEST(eval("4!=4") == 0);
    BOOST_TEST(eval("1+2<4") == 1);   // arithmetic binds tighter than comparison
    BOOST_TEST(eval("1<2==1") == 1);  // relational binds tighter than equality
    BOOST_TEST(eval("!0") == 1);
    BOOST_TEST(eval("!7") == 0);
    BOOST_TEST(eval("!!7") == 1);
    BOOST_TEST(eval("2&&3") == 1);
    BOOST_TEST(eval("2&&0") == 0);
    BOOST_TEST(eval("0||3") == 1);
    BOOST_TEST(eval("0||0") == 0);
    BOOST_TEST(eval("1||0&&0") == 1);  // && binds tighter than ||
    // Short-circuit evaluation, as in C: the guarded division never runs.
    BOOST_TEST(eval("0 && 1/0") == 0);
    BOOST_TEST(eval("1 || 1/0") == 1);
    BOOST_TEST(eval("N > 0 && M / N > 2", {{"N", 0}, {"M", 10}}) == 0);
    BOOST_TEST(eval("BM*BN/(TM*TM) <= 1024", {{"BM", 128}, {"BN", 128}, {"TM", 4}}) == 1);
    BOOST_TEST(eval("BM*BN/(TM*TM) <= 1024", {{"BM", 128}, {"BN", 128}, {"TM", 2}}) == 0);
}

BOOST_AUTO_TEST_CASE(functions)
{
    BOOST_TEST(eval("ceil_div(10,3)") == 4);
    BOOST_TEST(eval("ceil_div(9,3)") == 3);
    BOOST_TEST(eval("ceil_div(0,5)") == 0);
    BOOST_TEST(eval("ceil_div(-7,2)") == -3);
    BOOST_TEST(eval("ceil_div(7,-2)") == -3);
    BOOST_TEST(eval("ceil_div(-7,-2)") == 4);
    BOOST_TEST(eval("ceil_div(9223372036854775807, 2)") == int64_max / 2 + 1);  // no (a+b-1) overflow
    BOOST_TEST(eval("min(3)") == 3);
    BOOST_TEST(eval("min(5,2,9)") == 2);
    BOOST_TEST(eval("max(5,2,9)") == 9);
    BOOST_TEST(eval("max(-1,-5)") == -1);
    BOOST_TEST(eval("max(min(4,8), ceil_div(N, 16))", {{"N", 100}}) == 7);
    BOOST_TEST(eval(" ceil_div ( N , 16 ) ", {{"N", 33}}) == 3);
}

BOOST_AUTO_TEST_CASE(identifiers_and_variables)
{
    const auto e = expression::parse("ceil_div(N,BM)*M + N - _x1");
    BOOST_TEST(e.text() == "ceil_div(N,BM)*M + N - _x1");
    const std::vector<std::string> expected{"BM", "M", "N", "_x1"};
    BOOST_TEST(e.identifiers() == expected, boost::test_tools::per_element());
    BOOST_TEST(e.evaluate({{"N", 100}, {"BM", 32}, {"M", 3}, {"_x1", 1}}) == 4 * 3 + 100 - 1);
    BOOST_TEST(expression::parse("12*4").identifiers().empty());
    // A name used as a function is not an identifier of the expression.
    BOOST_TEST(expression::parse("min(a, 2)").identifiers() == std::vector<std::string>{"a"},
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(constants_and_default)
{
    const expression zero;
    BOOST_TEST(zero.text() == "0");
    BOOST_TEST(zero.evaluate({}) == 0);
    const auto c = expression::constant(-17);
    BOOST_TEST(c.text() == "-17");
    BOOST_TEST(c.evaluate({}) == -17);
    BOOST_TEST(expression::parse(c.text()).evaluate({}) == -17);
    // The most negative int64 has no literal; its text still parses back to the same value.
    const auto m = expression::constant(int64_min);
    BOOST_TEST(m.evaluate({}) == int64_min);
    BOOST_TEST(expression::parse(m.text()).evaluate({}) == int64_min);
}

BOOST_AUTO_TEST_CASE(syntax_errors_quote_expression_and_column)
{
    BOOST_TEST(parse_error("M*/K") == "expression 'M*/K': unexpected '/' at column 3");
    BOOST_TEST(parse_error("M*") == "expression 'M*': unexpected end of expression at column 3");
    BOOST_TEST(parse_error("") == "expression '': empty expression");
    BOOST_TEST(parse_error("   ") == "expression '   ': empty expression");
    BOOST_TEST(parse_error("(1+2") == "expression '(1+2': unexpected end of expression at column 5");
    BOOST_TEST(parse_error("1+2)") == "expression '1+2)': unexpected ')' at column 4");
    BOOST_TEST(parse_error("2 3") == "expression '2 3': unexpected '3' at column 3");
    BOOST_TEST(parse_error("a = b") == "expression 'a = b': unexpected '=' at column 3 (did you mean '=='?)");
    BOOST_TEST(parse_error("a & b") == "expression 'a & b': unexpected '&' at column 3 (did you mean '&&'?)");
    BOOST_TEST(parse_error("a | b") == "expression 'a | b': unexpected '|' at column 3 (did you mean '||'?)");
    BOOST_TEST(parse_error("1.5") == "expression '1.5': unexpected '.' at column 2");
    BOOST_TEST(parse_error("16u") == "expression '16u': malformed integer literal at column 1");
    BOOST_TEST(parse_error("99999999999999999999") ==
               "expression '99999999999999999999': integer literal out of range at column 1");
    BOOST_TEST(parse_error("9223372036854775808") ==
               "expression '9223372036854775808': integer literal out of range at column 1");
    BOOST_TEST(parse_error("min(1,)") == "expression 'min(1,)': unexpected ')' at column 7");
    BOOST_TEST(parse_error("max(1 2)") == "expression 'max(1 2)': unexpected '2' at column 7");
    // A newline inside the text must not split the one-line message.
    BOOST_TEST(parse_error("M\n*") == "expression 'M *': unexpected end of expression at column 4");
}

BOOST_AUTO_TEST_CASE(unknown_functions_and_arity)
{
    BOOST_TEST(parse_error("foo(1)") ==
               "expression 'foo(1)': unknown function 'foo' at column 1 "
               "(known: ceil_div, min, max)");
    BOOST_TEST(
        parse_error("2*ceildiv(N,4)") ==
        "expression '2*ceildiv(N,4)': unknown function 'ceildiv' at column 3 (known: ceil_div, min, max)");
    BOOST_TEST(parse_error("ceil_div(1)") ==
               "expression 'ceil_div(1)': ceil_div takes 2 arguments, got 1 at column 1");
    BOOST_TEST(parse_error("ceil_div(1,2,3)") ==
               "expression 'ceil_div(1,2,3)': ceil_div takes 2 arguments, got 3 at column 1");
    BOOST_TEST(parse_error("1+min()") ==
               "expression '1+min()': min takes at least 1 argument, got 0 at column 3");
    BOOST_TEST(parse_error("max()") ==
               "expression 'max()': max takes at least 1 argument, got 0 at column 1");
}

BOOST_AUTO_TEST_CASE(evaluation_errors)
{
    BOOST_TEST(eval_error("M*Q", {{"M", 2}}) == "expression 'M*Q': unknown identifier 'Q' at column 3");
    BOOST_TEST(eval_error("M/K", {{"M", 2}, {"K", 0}}) == "expression 'M/K': division by zero at column 2");
    BOOST_TEST(eval_error("M % K", {{"M", 2}, {"K", 0}}) == "expression 'M % K': modulo by zero at column 3");
    BOOST_TEST(eval_error("ceil_div(M,K)", {{"M", 2}, {"K", 0}}) ==
               "expression 'ceil_div(M,K)': division by zero at column 1");
    BOOST_TEST(eval_error("M*M", {{"M", std::int64_t{1} << 32}}) ==
               "expression 'M*M': int64 overflow in '*' at column 2");
    BOOST_TEST(eval_error("M+1", {{"M", int64_max}}) ==
               "expression 'M+1': int64 overflow in '+' at column 2");
    BOOST_TEST(eval_error("M-1", {{"M", int64_min}}) ==
               "expression 'M-1': int64 overflow in '-' at column 2");
    BOOST_TEST(eval_error("-M", {{"M", int64_min}}) == "expression '-M': int64 overflow in '-' at column 1");
    BOOST_TEST(eval_error("M/K", {{"M", int64_min}, {"K", -1}}) ==
               "expression 'M/K': int64 overflow in '/' at column 2");
    BOOST_TEST(eval_error("M%K", {{"M", int64_min}, {"K", -1}}) ==
               "expression 'M%K': int64 overflow in '%' at column 2");
    BOOST_TEST(eval_error("ceil_div(M,K)", {{"M", int64_min}, {"K", -1}}) ==
               "expression 'ceil_div(M,K)': int64 overflow in 'ceil_div' at column 1");
}

// Expressions come from models' launch plans: nesting and length are bounded before the recursion
// of parsing, evaluating or freeing the tree can overflow the stack (a reply of 5,000 nested
// parentheses, or a flat "0+0+...", used to crash the engine with SIGSEGV).
BOOST_AUTO_TEST_CASE(nesting_and_length_are_bounded)
{
    const std::string deep_ok = std::string(64, '(') + "1" + std::string(64, ')');
    BOOST_TEST(eval(deep_ok) == 1);
    const std::string too_deep = std::string(65, '(') + "1" + std::string(65, ')');
    BOOST_TEST(parse_error(too_deep).find("nested more than 64 levels deep") != std::string::npos);
    BOOST_TEST(parse_error(std::string(5000, '(') + "1").find("characters: at most 4096") !=
               std::string::npos);

    std::string minus;
    for (int i = 0; i < 65; ++i)
        minus += "- ";
    BOOST_TEST(parse_error(minus + "1").find("nested more than 64 levels deep") != std::string::npos);
    std::string calls;
    for (int i = 0; i < 65; ++i)
        calls += "min(";
    calls += "1" + std::string(65, ')');
    BOOST_TEST(parse_error(calls).find("nested more than 64 levels deep") != std::string::npos);

    std::string chain = "0";
    while (chain.size() + 2 <= expression::max_length)
        chain += "+1";
    BOOST_TEST(eval(chain) == static_cast<std::int64_t>((chain.size() - 1) / 2));
    BOOST_TEST(parse_error(chain + "+1").find("at most 4096 are accepted") != std::string::npos);
    // The message quotes the start of a long expression, not all of it.
    BOOST_TEST(parse_error(too_deep + std::string(300, ' ')).size() < 300u);
}

BOOST_AUTO_TEST_SUITE_END()
