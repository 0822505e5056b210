#include "harness/compile/include_policy.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpsmith
{

namespace
{

// ---------------------------------------------------------------------------------------------
// The lexer. Readings where compilers differ are options; check_include_policy scans under each.

enum class separators
{
    none,    // ' always starts a character literal (C++11).
    strict,  // 1'000: a ' between two digits or letters continues a pp-number (C++14). Any other '
             // right after a number is refused in every reading (EDG takes quotes into the number
             // where others do not).
};

struct reading
{
    bool trigraphs = false;           // ??= is #, ??/ is \, ... (C++17 removed them; EDG warns).
    bool splice_after_space = false;  // "\ \n" splices like "\\\n" (GCC does, EDG does not).
    bool lone_cr_is_newline = false;  // A CR not followed by LF ends a line (GCC), or is a space.
    separators digit_separators = separators::strict;
    bool extended_identifiers = false;  // $ and bytes >= 0x80 are identifier characters (GCC), or
                                        // stray characters of their own (EDG/NVRTC).
};

constexpr char eof = '\0';

char trigraph(char c)
{
    switch (c)
    {
        case '=':
            return '#';
        case '/':
            return '\\';
        case '\'':
            return '^';
        case '(':
            return '[';
        case ')':
            return ']';
        case '!':
            return '|';
        case '<':
            return '{';
        case '>':
            return '}';
        case '-':
            return '~';
        default:
            return eof;
    }
}

bool horizontal_space(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

bool identifier_start(char c, bool extended)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (extended && (c == '$' || static_cast<unsigned char>(c) >= 0x80));
}

bool identifier_char(char c, bool extended)
{
    return identifier_start(c, extended) || (c >= '0' && c <= '9');
}

bool digit(char c)
{
    return c >= '0' && c <= '9';
}

// A violation: what rule, at which offset of the source.
struct violation
{
    std::size_t offset = 0;
    std::string rule;
};

// The operators a kernel may not name, with why: they probe the file system or run a pragma of the
// kernel's choosing. libcu++'s _CCCL_HAS_INCLUDE(x) is __has_include(x), and _CCCL_PRAGMA(x) is
// _Pragma(#x).
std::optional<std::string_view> refused_operator(std::string_view name)
{
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> refused{{
        {"__has_include", " is refused (it probes the file system)"},
        {"__has_include_next", " is refused (it probes the file system)"},
        {"__has_embed", " is refused (it probes the file system)"},
        {"_CCCL_HAS_INCLUDE", " is refused (it probes the file system)"},
        {"_Pragma", " is refused"},
        {"__pragma", " is refused"},
        {"_CCCL_PRAGMA", " is refused"},
    }};
    for (const auto& [operator_name, why] : refused)
        if (name == operator_name)
            return why;
    return std::nullopt;
}

constexpr const char* ucn_rule =
    "a universal character name (\\uXXXX) outside a string or character literal is refused (compilers "
    "disagree "
    "on which of them continue a name or a number)";

class scanner
{
public:
    scanner(std::string_view source, reading r) : src_(source), r_(r) {}

    std::optional<violation> run()
    {
        if (src_.starts_with("\xEF\xBB\xBF"))
            pos_ = 3;
        bool line_start = true;
        bool in_pragma = false;
        while (!found_)
        {
            const auto c = cooked(pos_);
            if (c.ch == eof)
                break;
            if (c.ch == '\n')
            {
                line_start = true;
                in_pragma = false;
                pos_ = c.next;
                continue;
            }
            if (horizontal_space(c.ch))
            {
                pos_ = c.next;
                continue;
            }
            if (c.ch == '/' && skip_comment(c, line_start))
                continue;
            if (line_start && starts_directive(c))
            {
                line_start = false;
                directive(c.start, in_pragma);
                continue;
            }
            line_start = false;
            token(c, in_pragma);
        }
        return found_;
    }

    // Wherever the lexer above and a compiler might disagree about comments and literals (a new
    // kind of token, a compiler's own extension), a directive could hide in what the lexer takes
    // for a comment or a string. This looks at the text after translation phases 1 and 2 of this
    // reading, with no notion of comments or literals: every '#' or "%:" followed (after spaces
    // and block comments) by include, include_next, import or embed must be an #include <...> of
    // an allowed toolkit header, and the operators that probe files or run pragmas may not appear
    // at all, in a comment or a string either.
    std::optional<violation> hidden_directive() const
    {
        std::string text;
        std::vector<std::size_t> at;  // physical offset of each character of text
        text.reserve(src_.size());
        at.reserve(src_.size());
        for (auto c = cooked(src_.starts_with("\xEF\xBB\xBF") ? 3 : 0); c.ch != eof; c = cooked(c.next))
        {
            text += c.ch;
            at.push_back(c.start);
        }
        // For each position, where the first "*/" at or after it starts (npos: none); a block
        // comment opened at i ends after the first "*/" starting at i + 2 or later ("/*/" does not
        // close it).
        const std::size_t n = text.size();
        std::vector<std::size_t> next_close(n + 2, std::string::npos);
        for (std::size_t i = n; i-- > 0;)
            next_close[i] = (i + 1 < n && text[i] == '*' && text[i + 1] == '/') ? i : next_close[i + 1];
        constexpr std::size_t unreadable = std::string::npos;
        // After a '#': spaces and block comments, at most 64 of them. A comment that never ends or
        // a 65th one makes the directive unreadable, and an unreadable directive is refused.
        auto skip_space = [&](std::size_t p)
        {
            for (int comments = 0; p < n;)
            {
                if (horizontal_space(text[p]))
                    ++p;
                else if (text[p] == '/' && p + 1 < n && text[p + 1] == '*')
                {
                    const std::size_t close = p + 2 <= n ? next_close[p + 2] : std::string::npos;
                    if (close == std::string::npos || ++comments > 64)
                        return unreadable;
                    p = close + 2;
                }
                else
                    break;
            }
            return p;
        };
        auto word_at = [&](std::size_t p)
        {
            std::size_t e = p;
            while (e < n && identifier_char(text[e], false))
                ++e;
            return std::string_view(text).substr(p, e - p);
        };
        for (std::size_t i = 0; i < n; ++i)
        {
            const char ch = text[i];
            if (identifier_start(ch, false) && (i == 0 || !identifier_char(text[i - 1], false)))
            {
                const std::string_view w = word_at(i);
                if (refused_operator(w))
                    return violation{at[i],
                                     std::string(w) +
                                         " is refused anywhere in the source, comments and "
                                         "strings included"};
                i += w.size() - 1;
                continue;
            }
            std::size_t after = 0;
            if (ch == '#')
                after = i + 1;
            else if (ch == '%' && i + 1 < n && text[i + 1] == ':')
                after = i + 2;
            else
                continue;
            const std::size_t name_at = skip_space(after);
            if (name_at == unreadable)
                return violation{
                    at[i],
                    "a '#' followed by a comment that never ends, or by more than 64 comments, is "
                    "refused"};
            const std::string_view name = name_at < n ? word_at(name_at) : std::string_view();
            if (name != "include" && name != "include_next" && name != "import" && name != "embed")
                continue;
            const std::size_t operand = skip_space(name_at + name.size());
            bool allowed = false;
            if (name == "include" && operand < n && text[operand] == '<')
            {
                const std::size_t end = text.find_first_of(">\n", operand + 1);
                allowed =
                    end != std::string::npos && text[end] == '>' &&
                    allowed_toolkit_header(std::string_view(text).substr(operand + 1, end - operand - 1));
            }
            if (!allowed)
            {
                std::string rule = "#";
                rule.append(name);
                rule.append(
                    " of anything but a CUDA toolkit device header is refused anywhere in the source, "
                    "comments and strings included");
                return violation{at[i], std::move(rule)};
            }
        }
        return std::nullopt;
    }

private:
    struct cooked_char
    {
        char ch = eof;
        std::size_t start = 0;  // Physical offset of the character (after any splices before it).
        std::size_t next = 0;   // Physical offset after it.
    };

    std::string_view src_;
    reading r_;

    bool ident_start(char c) const { return identifier_start(c, r_.extended_identifiers); }
    bool ident_char(char c) const { return identifier_char(c, r_.extended_identifiers); }
    std::size_t pos_ = 0;
    std::optional<violation> found_;

    // Translation phases 1 and 2 for one character at physical offset p: trigraphs (when read so),
    // newline forms, and line splices skipped before the character.
    cooked_char cooked(std::size_t p) const
    {
        const std::size_t n = src_.size();
        for (;;)
        {
            if (p >= n)
                return {eof, n, n};
            char c = src_[p];
            std::size_t q = p + 1;
            if (r_.trigraphs && c == '?' && p + 2 < n && src_[p + 1] == '?' && trigraph(src_[p + 2]) != eof)
            {
                c = trigraph(src_[p + 2]);
                q = p + 3;
            }
            if (c == '\\')
            {
                std::size_t s = q;
                if (r_.splice_after_space)
                    while (s < n && horizontal_space(src_[s]))
                        ++s;
                if (std::size_t after = newline_end(s); after != 0)
                {
                    p = after;
                    continue;
                }
            }
            if (c == '\r')
            {
                if (q < n && src_[q] == '\n')
                    return {'\n', p, q + 1};
                return {r_.lone_cr_is_newline ? '\n' : ' ', p, q};
            }
            if (c == eof)
                return {eof, p, p};  // NVRTC takes a C string: nothing after a NUL is compiled.
            return {c, p, q};
        }
    }

    // The offset after a physical newline starting at s, or 0 when there is none there.
    std::size_t newline_end(std::size_t s) const
    {
        if (s >= src_.size())
            return 0;
        if (src_[s] == '\n')
            return s + 1;
        if (src_[s] == '\r')
        {
            if (s + 1 < src_.size() && src_[s + 1] == '\n')
                return s + 2;
            return r_.lone_cr_is_newline ? s + 1 : 0;
        }
        return 0;
    }

    void refuse(std::size_t offset, std::string rule)
    {
        if (!found_)
            found_ = violation{offset, std::move(rule)};
    }

    // At c == '/': skips a comment and returns true, or returns false for a plain '/'. A newline
    // inside a block comment counts as a line start: a `#` right after such a comment may begin a
    // directive (NVRTC treats `/*\n*/ #include` that way when the comment began the line).
    bool skip_comment(const cooked_char& c, bool& line_start)
    {
        const auto d = cooked(c.next);
        if (d.ch == '/')
        {
            std::size_t p = d.next;
            for (auto e = cooked(p); e.ch != eof && e.ch != '\n'; e = cooked(p))
                p = e.next;
            pos_ = p;
            return true;
        }
        if (d.ch != '*')
            return false;
        std::size_t p = d.next;
        char prev = eof;
        for (;;)
        {
            const auto e = cooked(p);
            if (e.ch == eof)
            {
                pos_ = e.next;
                return true;
            }
            p = e.next;
            if (e.ch == '\n')
                line_start = true;
            if (prev == '*' && e.ch == '/')
                break;
            prev = e.ch;
        }
        pos_ = p;
        return true;
    }

    // '#' or the digraph "%:", but not "##" / "%:%:" (a punctuator, never a directive).
    bool starts_directive(const cooked_char& c)
    {
        std::size_t after = 0;
        if (c.ch == '#')
            after = c.next;
        else if (c.ch == '%')
        {
            const auto d = cooked(c.next);
            if (d.ch != ':')
                return false;
            after = d.next;
        }
        else
            return false;
        const auto e = cooked(after);
        if (e.ch == '#')
            return false;
        if (e.ch == '%' && cooked(e.next).ch == ':')
            return false;
        pos_ = after;
        return true;
    }

    // Skips spaces and comments inside a directive (a block comment is one space, even across lines;
    // a line comment runs to the end of the line). Returns the next character.
    cooked_char skip_directive_space()
    {
        for (;;)
        {
            const auto c = cooked(pos_);
            if (horizontal_space(c.ch))
            {
                pos_ = c.next;
                continue;
            }
            if (c.ch == '/')
            {
                bool ignored = false;
                if (skip_comment(c, ignored))
                    continue;
            }
            return c;
        }
    }

    std::string identifier_at(cooked_char c)
    {
        std::string name;
        std::size_t p = c.start;
        for (auto e = cooked(p); e.ch != eof; e = cooked(p))
        {
            if (ident_char(e.ch))
            {
                name += e.ch;
                p = e.next;
                continue;
            }
            // A universal character name (\uXXXX, \UXXXXXXXX) continues an identifier.
            if (e.ch == '\\')
            {
                const auto u = cooked(e.next);
                if (u.ch == 'u' || u.ch == 'U')
                {
                    name += '\\';
                    name += u.ch;
                    p = u.next;
                    continue;
                }
            }
            break;
        }
        pos_ = p;
        return name;
    }

    void directive(std::size_t hash_offset, bool& in_pragma)
    {
        static const std::array<std::string_view, 19> harmless{"define",
                                                               "undef",
                                                               "if",
                                                               "ifdef",
                                                               "ifndef",
                                                               "elif",
                                                               "elifdef",
                                                               "elifndef",
                                                               "else",
                                                               "endif",
                                                               "line",
                                                               "error",
                                                               "warning",
                                                               "ident",
                                                               "sccs",
                                                               "assert",
                                                               "unassert",
                                                               "pragma",
                                                               "region"};
        const auto c = skip_directive_space();
        if (c.ch == eof || c.ch == '\n')
            return;  // The null directive.
        if (digit(c.ch))
            return;  // A line marker (# 12 "name"), like #line: the rest of the line is ordinary tokens.
        if (!ident_start(c.ch) && c.ch != '\\')
        {
            refuse(hash_offset, "an unknown preprocessing directive is refused");
            return;
        }
        const std::string name = identifier_at(c);
        if (name == "include")
        {
            include_operand(hash_offset);
            return;
        }
        if (name == "include_next" || name == "import" || name == "embed" || name == "__include_macros")
        {
            refuse(hash_offset, "#" + name + " is refused");
            return;
        }
        if (name == "pragma")
        {
            in_pragma = true;
            return;
        }
        if (std::find(harmless.begin(), harmless.end(), name) == harmless.end())
        {
            refuse(hash_offset,
                   name.size() <= 32 ? "the unknown directive #" + name + " is refused"
                                     : "an unknown preprocessing directive is refused");
        }
    }

    void include_operand(std::size_t hash_offset)
    {
        const auto c = skip_directive_space();
        if (c.ch == '"')
        {
            refuse(hash_offset, "a quoted #include is refused");
            return;
        }
        if (c.ch != '<')
        {
            refuse(hash_offset, "an #include whose name comes from a macro is refused");
            return;
        }
        std::string name;
        std::size_t p = c.next;
        for (auto e = cooked(p);; e = cooked(p))
        {
            if (e.ch == eof || e.ch == '\n')
            {
                refuse(hash_offset, "an #include < without its closing > is refused");
                return;
            }
            p = e.next;
            if (e.ch == '>')
                break;
            name += e.ch;
        }
        pos_ = p;
        if (!allowed_toolkit_header(name))
            refuse(hash_offset,
                   "#include <...> of a header that is not a CUDA toolkit device header is refused");
    }

    // One token outside directive names: identifiers are checked, literals skipped whole.
    void token(const cooked_char& c, bool in_pragma)
    {
        if (ident_start(c.ch) || (c.ch == '\\' && (cooked(c.next).ch == 'u' || cooked(c.next).ch == 'U')))
        {
            const std::string name = identifier_at(c);
            if (name.find('\\') != std::string::npos)
            {
                refuse(c.start, ucn_rule);
                return;
            }
            check_identifier(c.start, name, in_pragma);
            const auto q = cooked(pos_);
            if (q.ch == '"' && (name == "R" || name == "u8R" || name == "uR" || name == "UR" || name == "LR"))
            {
                raw_string(q);
                literal_suffix();
            }
            return;
        }
        if (digit(c.ch) || (c.ch == '.' && digit(cooked(c.next).ch)))
        {
            pp_number(c);
            return;
        }
        if (c.ch == '"' || c.ch == '\'')
        {
            quoted_literal(c);
            literal_suffix();
            return;
        }
        pos_ = c.next;
    }

    // A user-defined literal's suffix right after a string or character literal ("x"R, 'a'_k): an
    // identifier that is part of the literal, never a raw string's prefix ("x"R"( opens no raw
    // string: its "( is an ordinary string literal).
    void literal_suffix()
    {
        const auto c = cooked(pos_);
        if (ident_start(c.ch))
            (void)identifier_at(c);
    }

    void check_identifier(std::size_t offset, const std::string& name, bool in_pragma)
    {
        if (const auto why = refused_operator(name))
            refuse(offset, name + std::string(*why));
        else if (in_pragma && (name == "dependency" || name == "include_alias" || name == "include" ||
                               name == "include_next" || name == "import" || name == "embed"))
            refuse(offset, "a #pragma that names a file is refused");
    }

    void pp_number(const cooked_char& c)
    {
        std::size_t p = c.next;
        char prev = c.ch;
        for (auto e = cooked(p); e.ch != eof; e = cooked(p))
        {
            if (ident_char(e.ch) || e.ch == '.')
            {
                prev = e.ch;
                p = e.next;
                continue;
            }
            if ((e.ch == '+' || e.ch == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P'))
            {
                prev = e.ch;
                p = e.next;
                continue;
            }
            // A universal character name in a number: which ones continue it differs between
            // compilers (a fifth look found EDG ending 1\u00b2 before the UCN, so a quote after it
            // opened a character literal), and no kernel needs one.
            if (e.ch == '\\')
            {
                const auto u = cooked(e.next);
                if (u.ch == 'u' || u.ch == 'U')
                {
                    refuse(e.start, ucn_rule);
                    pos_ = u.next;
                    return;
                }
            }
            if (e.ch == '\'')
            {
                // 1'000 only: EDG takes any number of quotes after a number into it (1x'', 1''')
                // where other readings open a character literal, so every other ' after a number is
                // refused (a fourth review hid a directive behind 1x''/*).
                const auto f = cooked(e.next);
                if (!ident_char(prev) || !ident_char(f.ch))
                {
                    refuse(e.start,
                           "a ' right after a number is refused unless it separates two digits or letters "
                           "(1'000)");
                    pos_ = e.next;
                    return;
                }
                if (r_.digit_separators == separators::strict)
                {
                    prev = f.ch;
                    p = f.next;
                    continue;
                }
            }
            break;
        }
        pos_ = p;
    }

    // "..." or '...': up to the closing quote, or to the end of the line when there is none (an
    // unterminated literal ends with its line).
    void quoted_literal(const cooked_char& c)
    {
        std::size_t p = c.next;
        for (auto e = cooked(p); e.ch != eof && e.ch != '\n'; e = cooked(p))
        {
            p = e.next;
            if (e.ch == c.ch)
                break;
            if (e.ch == '\\')
            {
                const auto f = cooked(p);
                if (f.ch != eof && f.ch != '\n')
                    p = f.next;
            }
        }
        pos_ = p;
    }

    // R"delim( ... )delim": the standard undoes line splices and trigraphs between the quotes, so the
    // body is read as physical characters, and a body where that matters is refused (below).
    void raw_string(const cooked_char& quote)
    {
        std::size_t p = quote.start + 1;
        std::string delimiter;
        for (;; ++p)
        {
            if (p >= src_.size() || delimiter.size() > 16)
            {
                refuse(quote.start, "a malformed raw string literal is refused");
                return;
            }
            const char ch = src_[p];
            if (ch == '(')
                break;
            if (ch == ')' || ch == '\\' || ch == '"' || static_cast<unsigned char>(ch) <= ' ' || ch == 0x7f)
            {
                refuse(quote.start, "a malformed raw string literal is refused");
                return;
            }
            delimiter += ch;
        }
        const std::string close = ")" + delimiter + "\"";
        const std::size_t end = src_.find(close, p + 1);
        if (end == std::string_view::npos)
        {
            refuse(quote.start, "an unterminated raw string literal is refused");
            return;
        }
        // Where compilers disagree, refuse: NVRTC joins a backslash-newline inside the body (so
        // `)\` newline `"` closes it there, and the lines after would be code to NVRTC and string
        // to us), and trigraphs and universal character names may be read before the close is
        // looked for. Without a backslash or "??" in the body every reading ends it at `end`.
        const std::string_view body = src_.substr(p + 1, end - (p + 1));
        if (body.find('\\') != std::string_view::npos || body.find("??") != std::string_view::npos)
        {
            refuse(quote.start,
                   "a raw string literal with a backslash or \"??\" in it is refused (compilers end it "
                   "in different places)");
            return;
        }
        pos_ = end + close.size();
    }
};

std::size_t line_of(std::string_view source, std::size_t offset)
{
    return 1 + static_cast<std::size_t>(
                   std::count(source.begin(), source.begin() + std::min(offset, source.size()), '\n'));
}

}  // namespace

std::optional<std::string> check_include_policy(std::string_view source)
{
    // NVRTC receives the source as a C string.
    source = source.substr(0, source.find('\0'));
    // Control characters other than tab, line feed, vertical tab, form feed and the CR of a CRLF are
    // refused before any reading: NVRTC joins "\" CR CR LF into a line splice, which no reading
    // here did (a third review hid #include "/tmp/..." with it), and no kernel needs a stray CR.
    for (std::size_t i = 0; i < source.size(); ++i)
    {
        const auto b = static_cast<unsigned char>(source[i]);
        const bool crlf = b == '\r' && i + 1 < source.size() && source[i + 1] == '\n';
        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\v' && b != '\f' && !crlf) || b == 0x7f)
        {
            char code[8];
            std::snprintf(code, sizeof code, "0x%02X", b);
            return "include policy: line " + std::to_string(line_of(source, i)) + ": the control character " +
                   code + (b == '\r' ? " (a CR not followed by a line feed)" : "") +
                   " is refused; a kernel's source is text: tabs, line feeds (CRLF too), vertical tabs and "
                   "form feeds only (docs/hardening.md)";
        }
    }
    // NVRTC's own reading first, so that its message is the one reported; then every reading where
    // compilers differ.
    std::optional<violation> first;
    for (int bits = 0; bits < 32 && !first; ++bits)
    {
        reading r;
        r.trigraphs = (bits & 1) != 0;
        r.splice_after_space = (bits & 2) != 0;
        r.lone_cr_is_newline = (bits & 4) != 0;
        r.extended_identifiers = (bits & 8) != 0;
        r.digit_separators = bits < 16 ? separators::strict : separators::none;
        first = scanner(source, r).run();
    }
    // The same text with no lexer at all, once per way of reading phases 1 and 2.
    for (int bits = 0; bits < 8 && !first; ++bits)
    {
        reading r;
        r.trigraphs = (bits & 1) != 0;
        r.splice_after_space = (bits & 2) != 0;
        r.lone_cr_is_newline = (bits & 4) != 0;
        first = scanner(source, r).hidden_directive();
    }
    if (!first)
        return std::nullopt;
    return "include policy: line " + std::to_string(line_of(source, first->offset)) + ": " + first->rule +
           "; a kernel may include only CUDA toolkit device headers by name, e.g. #include <cuda_fp16.h> "
           "(docs/hardening.md)";
}

}  // namespace warpsmith
