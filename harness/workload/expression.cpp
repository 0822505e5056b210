#include "harness/workload/expression.hpp"

#include "harness/core/utf8_text.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace warpsmith
{

enum class node_kind
{
    literal,
    identifier,
    negate,
    logical_not,
    binary,
    call,
};

enum class binary_op
{
    add,
    sub,
    mul,
    div,
    mod,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    logical_and,
    logical_or,
};

enum class function_id
{
    ceil_div,
    min,
    max,
};

struct expression::node
{
    node_kind kind = node_kind::literal;
    std::int64_t value = 0;  ///< literal
    std::string name;        ///< identifier, or the function's name for a call
    binary_op op = binary_op::add;
    function_id fn = function_id::min;
    std::vector<std::shared_ptr<const node>> children;
    std::size_t column = 1;  ///< 1-based column of the token that makes this node
};

namespace
{

using node_ptr = std::shared_ptr<const expression::node>;

// Expression text quoted in one line: a newline or tab inside a workload string must not split the
// message over several lines.
std::string quoted(std::string_view text)
{
    constexpr std::size_t shown = 200;  // a model's 4,000-character expression is not repeated whole
    std::string out = "'";
    for (char c : utf8_prefix(text, shown))
        out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    out += text.size() > shown ? "...'" : "'";
    return out;
}

[[noreturn]] void fail(std::string_view text, const std::string& problem)
{
    throw expression_error("expression " + quoted(text) + ": " + problem);
}

bool is_ident_start(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Recursive descent, one function per precedence level, lowest first:
//   or: and ('||' and)*      and: equality ('&&' equality)*
//   equality: relational (('=='|'!=') relational)*
//   relational: additive (('<'|'<='|'>'|'>=') additive)*
//   additive: term (('+'|'-') term)*      term: unary (('*'|'/'|'%') unary)*
//   unary: ('-'|'!') unary | primary      primary: int | ident | ident '(' args ')' | '(' or ')'
class parser
{
public:
    explicit parser(std::string_view text) : text_(text) {}

    node_ptr parse_all()
    {
        skip_space();
        if (pos_ == text_.size())
            fail(text_, "empty expression");
        auto root = parse_or();
        skip_space();
        if (pos_ != text_.size())
            unexpected();
        return root;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    int depth_ = 0;

    // Parentheses, calls and unary operators nest by recursion: a model's "((((...))))" or
    // "- - - ... 1" of a few thousand levels used to overflow the stack and kill the engine.
    struct nesting
    {
        explicit nesting(parser& p) : p_(p)
        {
            if (++p_.depth_ > expression::max_nesting)
                fail(p_.text_,
                     "nested more than " + std::to_string(expression::max_nesting) + " levels deep");
        }
        ~nesting() { --p_.depth_; }
        nesting(const nesting&) = delete;
        nesting& operator=(const nesting&) = delete;
        parser& p_;
    };

    std::size_t column() const { return pos_ + 1; }

    void skip_space()
    {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }

    [[noreturn]] void unexpected()
    {
        if (pos_ >= text_.size())
            fail(text_, "unexpected end of expression at column " + std::to_string(column()));
        std::string problem =
            "unexpected '" + std::string(1, text_[pos_]) + "' at column " + std::to_string(column());
        if (text_[pos_] == '=')
            problem += " (did you mean '=='?)";
        else if (text_[pos_] == '&' || text_[pos_] == '|')
            problem += " (did you mean '" + std::string(2, text_[pos_]) + "'?)";
        fail(text_, problem);
    }

    // Consumes op when the text continues with it (after spaces) and not with a longer operator
    // that starts the same way, e.g. '<' must not match the start of '<='.
    bool accept(std::string_view op)
    {
        skip_space();
        if (text_.substr(pos_, op.size()) != op)
            return false;
        if (op.size() == 1 && pos_ + 1 < text_.size())
        {
            const char next = text_[pos_ + 1];
            if ((op == "<" || op == ">" || op == "!") && next == '=')
                return false;
        }
        pos_ += op.size();
        return true;
    }

    static node_ptr make_binary(binary_op op, node_ptr lhs, node_ptr rhs, std::size_t col)
    {
        auto n = std::make_shared<expression::node>();
        n->kind = node_kind::binary;
        n->op = op;
        n->column = col;
        n->children = {std::move(lhs), std::move(rhs)};
        return n;
    }

    template <class Next>
    node_ptr parse_level(Next next, std::initializer_list<std::pair<std::string_view, binary_op>> ops)
    {
        auto lhs = (this->*next)();
        for (;;)
        {
            bool matched = false;
            for (const auto& [spelling, op] : ops)
            {
                skip_space();
                const std::size_t col = column();
                if (accept(spelling))
                {
                    auto rhs = (this->*next)();
                    lhs = make_binary(op, std::move(lhs), std::move(rhs), col);
                    matched = true;
                    break;
                }
            }
            if (!matched)
                return lhs;
        }
    }

    node_ptr parse_or() { return parse_level(&parser::parse_and, {{"||", binary_op::logical_or}}); }
    node_ptr parse_and() { return parse_level(&parser::parse_equality, {{"&&", binary_op::logical_and}}); }
    node_ptr parse_equality()
    {
        return parse_level(&parser::parse_relational, {{"==", binary_op::eq}, {"!=", binary_op::ne}});
    }
    node_ptr parse_relational()
    {
        return parse_level(
            &parser::parse_additive,
            {{"<=", binary_op::le}, {">=", binary_op::ge}, {"<", binary_op::lt}, {">", binary_op::gt}});
    }
    node_ptr parse_additive()
    {
        return parse_level(&parser::parse_term, {{"+", binary_op::add}, {"-", binary_op::sub}});
    }
    node_ptr parse_term()
    {
        return parse_level(&parser::parse_unary,
                           {{"*", binary_op::mul}, {"/", binary_op::div}, {"%", binary_op::mod}});
    }

    node_ptr parse_unary()
    {
        skip_space();
        const std::size_t col = column();
        if (accept("-") || accept("!"))
        {
            const nesting guard(*this);
            const bool neg = text_[col - 1] == '-';
            auto n = std::make_shared<expression::node>();
            n->kind = neg ? node_kind::negate : node_kind::logical_not;
            n->column = col;
            n->children = {parse_unary()};
            return n;
        }
        return parse_primary();
    }

    node_ptr parse_primary()
    {
        skip_space();
        if (pos_ >= text_.size())
            unexpected();
        const std::size_t col = column();
        const char c = text_[pos_];
        if (c == '(')
        {
            const nesting guard(*this);
            ++pos_;
            auto inner = parse_or();
            if (!accept(")"))
                unexpected();
            return inner;
        }
        if (std::isdigit(static_cast<unsigned char>(c)))
            return parse_literal();
        if (is_ident_start(c))
        {
            const std::size_t start = pos_;
            while (pos_ < text_.size() && is_ident_char(text_[pos_]))
                ++pos_;
            std::string name(text_.substr(start, pos_ - start));
            skip_space();
            if (pos_ < text_.size() && text_[pos_] == '(')
                return parse_call(name, col);
            auto n = std::make_shared<expression::node>();
            n->kind = node_kind::identifier;
            n->name = std::move(name);
            n->column = col;
            return n;
        }
        unexpected();
    }

    node_ptr parse_literal()
    {
        const std::size_t col = column();
        std::uint64_t value = 0;
        bool too_large = false;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        {
            const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
            if (value > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - digit) / 10)
                too_large = true;
            else
                value = value * 10 + digit;
            ++pos_;
        }
        if (pos_ < text_.size() && is_ident_char(text_[pos_]))
        {
            // "16u", "4x" or "1e3": not an integer literal of this language.
            fail(text_, "malformed integer literal at column " + std::to_string(col));
        }
        if (too_large)
            fail(text_, "integer literal out of range at column " + std::to_string(col));
        auto n = std::make_shared<expression::node>();
        n->kind = node_kind::literal;
        n->value = static_cast<std::int64_t>(value);
        n->column = col;
        return n;
    }

    node_ptr parse_call(const std::string& name, std::size_t col)
    {
        function_id fn;
        if (name == "ceil_div")
            fn = function_id::ceil_div;
        else if (name == "min")
            fn = function_id::min;
        else if (name == "max")
            fn = function_id::max;
        else
            fail(text_,
                 "unknown function '" + name + "' at column " + std::to_string(col) +
                     " (known: ceil_div, min, max)");
        const nesting guard(*this);
        ++pos_;  // '('
        auto n = std::make_shared<expression::node>();
        n->kind = node_kind::call;
        n->fn = fn;
        n->name = name;
        n->column = col;
        if (!accept(")"))
        {
            for (;;)
            {
                n->children.push_back(parse_or());
                if (accept(")"))
                    break;
                if (!accept(","))
                    unexpected();
            }
        }
        const std::size_t argc = n->children.size();
        if (fn == function_id::ceil_div && argc != 2)
        {
            fail(text_,
                 "ceil_div takes 2 arguments, got " + std::to_string(argc) + " at column " +
                     std::to_string(col));
        }
        if (fn != function_id::ceil_div && argc == 0)
            fail(text_, name + " takes at least 1 argument, got 0 at column " + std::to_string(col));
        return n;
    }
};

class evaluator
{
public:
    evaluator(std::string_view text, const variables& vars) : text_(text), vars_(vars) {}

    std::int64_t eval(const expression::node& n) const
    {
        switch (n.kind)
        {
            case node_kind::literal:
                return n.value;
            case node_kind::identifier:
            {
                auto it = vars_.find(n.name);
                if (it == vars_.end())
                    fail(text_, "unknown identifier '" + n.name + "' at column " + std::to_string(n.column));
                return it->second;
            }
            case node_kind::negate:
            {
                const std::int64_t v = eval(*n.children[0]);
                std::int64_t r;
                if (__builtin_sub_overflow(std::int64_t{0}, v, &r))
                    overflow("-", n.column);
                return r;
            }
            case node_kind::logical_not:
                return eval(*n.children[0]) == 0 ? 1 : 0;
            case node_kind::binary:
                return eval_binary(n);
            case node_kind::call:
                return eval_call(n);
        }
        return 0;
    }

private:
    std::string_view text_;
    const variables& vars_;

    [[noreturn]] void overflow(std::string_view op, std::size_t col) const
    {
        fail(text_, "int64 overflow in '" + std::string(op) + "' at column " + std::to_string(col));
    }

    std::int64_t eval_binary(const expression::node& n) const
    {
        // && and || short-circuit as in C, so "N > 0 && M / N > 2" is safe for N == 0.
        if (n.op == binary_op::logical_and)
            return (eval(*n.children[0]) != 0 && eval(*n.children[1]) != 0) ? 1 : 0;
        if (n.op == binary_op::logical_or)
            return (eval(*n.children[0]) != 0 || eval(*n.children[1]) != 0) ? 1 : 0;
        const std::int64_t a = eval(*n.children[0]);
        const std::int64_t b = eval(*n.children[1]);
        std::int64_t r = 0;
        switch (n.op)
        {
            case binary_op::add:
                if (__builtin_add_overflow(a, b, &r))
                    overflow("+", n.column);
                return r;
            case binary_op::sub:
                if (__builtin_sub_overflow(a, b, &r))
                    overflow("-", n.column);
                return r;
            case binary_op::mul:
                if (__builtin_mul_overflow(a, b, &r))
                    overflow("*", n.column);
                return r;
            case binary_op::div:
                return divide(a, b, n.column, "/");
            case binary_op::mod:
                if (b == 0)
                    fail(text_, "modulo by zero at column " + std::to_string(n.column));
                if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
                    overflow("%", n.column);
                return a % b;
            case binary_op::lt:
                return a < b;
            case binary_op::le:
                return a <= b;
            case binary_op::gt:
                return a > b;
            case binary_op::ge:
                return a >= b;
            case binary_op::eq:
                return a == b;
            case binary_op::ne:
                return a != b;
            case binary_op::logical_and:
            case binary_op::logical_or:
                break;
        }
        return 0;
    }

    std::int64_t divide(std::int64_t a, std::int64_t b, std::size_t col, std::string_view op) const
    {
        if (b == 0)
            fail(text_, "division by zero at column " + std::to_string(col));
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
            overflow(op, col);
        return a / b;
    }

    std::int64_t eval_call(const expression::node& n) const
    {
        if (n.fn == function_id::ceil_div)
        {
            const std::int64_t a = eval(*n.children[0]);
            const std::int64_t b = eval(*n.children[1]);
            // The mathematical ceiling of a/b for any signs, without the overflow of (a+b-1)/b.
            std::int64_t q = divide(a, b, n.column, "ceil_div");
            if (a % b != 0 && ((a < 0) == (b < 0)))
                ++q;
            return q;
        }
        std::int64_t best = eval(*n.children[0]);
        for (std::size_t i = 1; i < n.children.size(); ++i)
        {
            const std::int64_t v = eval(*n.children[i]);
            best = n.fn == function_id::min ? std::min(best, v) : std::max(best, v);
        }
        return best;
    }
};

void collect_identifiers(const expression::node& n, std::set<std::string>& out)
{
    if (n.kind == node_kind::identifier)
        out.insert(n.name);
    for (const auto& c : n.children)
        collect_identifiers(*c, out);
}

}  // namespace

expression::expression() : text_("0")
{
    // Launch plans default-construct many expressions; they all share one immutable zero node.
    static const std::shared_ptr<const node> zero = std::make_shared<const node>();
    root_ = zero;
}

expression expression::parse(std::string_view text)
{
    // The length bounds the tree, and with it the recursion of evaluating and freeing it: a flat
    // "0+0+...+0" of 100,000 terms is a chain that deep.
    if (text.size() > max_length)
        throw expression_error("expression of " + std::to_string(text.size()) + " characters: at most " +
                               std::to_string(max_length) + " are accepted");
    parser p(text);
    expression e;
    e.root_ = p.parse_all();
    e.text_ = std::string(text);
    return e;
}

expression expression::constant(std::int64_t value)
{
    expression e;
    auto n = std::make_shared<node>();
    n->kind = node_kind::literal;
    n->value = value;
    e.root_ = std::move(n);
    // The most negative int64 has no literal of its own; spell it so the text parses back.
    e.text_ = value == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807-1)"
                                                                : std::to_string(value);
    return e;
}

std::int64_t expression::evaluate(const variables& vars) const
{
    evaluator ev(text_, vars);
    return ev.eval(*root_);
}

std::vector<std::string> expression::identifiers() const
{
    std::set<std::string> names;
    collect_identifiers(*root_, names);
    return {names.begin(), names.end()};
}

}  // namespace warpsmith
