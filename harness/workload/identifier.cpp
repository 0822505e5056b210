#include "harness/workload/identifier.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace warpsmith
{

bool is_c_identifier(std::string_view s)
{
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
        return false;
    return std::all_of(
        s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_reserved_word(std::string_view s)
{
    static constexpr std::array<std::string_view, 60> words{
        "alignas",  "alignof",   "auto",     "bool",         "break",    "case",     "char",    "class",
        "const",    "continue",  "default",  "delete",       "do",       "double",   "else",    "enum",
        "explicit", "extern",    "false",    "float",        "for",      "friend",   "goto",    "if",
        "inline",   "int",       "long",     "namespace",    "new",      "noexcept", "nullptr", "operator",
        "private",  "protected", "public",   "register",     "restrict", "return",   "short",   "signed",
        "sizeof",   "static",    "struct",   "switch",       "template", "this",     "throw",   "true",
        "typedef",  "typename",  "union",    "unsigned",     "using",    "virtual",  "void",    "volatile",
        "while",    "constexpr", "decltype", "static_assert"};
    return std::find(words.begin(), words.end(), s) != words.end();
}

}  // namespace warpsmith
