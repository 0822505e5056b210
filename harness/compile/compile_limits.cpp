#include "harness/compile/compile_limits.hpp"

#include "harness/core/utf8_text.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>

namespace warpsmith
{

namespace
{

std::string mib(std::size_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return text;
}

}  // namespace

std::optional<std::string> check_source_nesting(std::string_view source, int most)
{
    int braces = 0, parens = 0, brackets = 0;
    bool in_number = false;  // inside a token that starts with a digit (where ' separates digits)
    for (std::size_t i = 0; i < source.size(); ++i)
    {
        const char c = source[i];
        const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        if (!word && c != '\'')
            in_number = false;
        else if (word && !in_number && std::isdigit(static_cast<unsigned char>(c)) &&
                 (i == 0 ||
                  !(std::isalnum(static_cast<unsigned char>(source[i - 1])) || source[i - 1] == '_')))
            in_number = true;
        if (c == '\'' && in_number)
            continue;  // a digit separator: 1'000, 0xFF'FF
        if (c == '/' && i + 1 < source.size() && source[i + 1] == '/')
        {
            i = source.find('\n', i);
            if (i == std::string_view::npos)
                break;
            continue;
        }
        if (c == '/' && i + 1 < source.size() && source[i + 1] == '*')
        {
            i = source.find("*/", i + 2);
            if (i == std::string_view::npos)
                break;
            ++i;
            continue;
        }
        if (c == '"' || c == '\'')
        {
            for (++i; i < source.size() && source[i] != c && source[i] != '\n'; ++i)
                if (source[i] == '\\')
                    ++i;
            continue;
        }
        // The digraphs <% %> <: :> are braces and brackets too.
        char b = c;
        if (i + 1 < source.size())
        {
            const char n = source[i + 1];
            if (c == '<' && n == '%')
                b = '{';
            else if (c == '%' && n == '>')
                b = '}';
            else if (c == '<' && n == ':')
                b = '[';
            else if (c == ':' && n == '>')
                b = ']';
            if (b != c)
                ++i;
        }
        int* depth = b == '{' || b == '}'   ? &braces
                     : b == '(' || b == ')' ? &parens
                     : b == '[' || b == ']' ? &brackets
                                            : nullptr;
        if (!depth)
            continue;
        if (b == '{' || b == '(' || b == '[')
        {
            if (++*depth > most)
                return "the source nests " + std::string(1, b) + " more than " + std::to_string(most) +
                       " levels deep (at byte " + std::to_string(i) +
                       "); the compiler's parser would recurse that deep";
        }
        else if (*depth > 0)
            --*depth;
    }
    return std::nullopt;
}

std::string cubin_too_large(std::size_t bytes, std::size_t limit)
{
    return "the cubin is " + mib(bytes) + ", above the limit of " + mib(limit) +
           " for one kernel (initialised __device__ arrays are stored in the cubin in full)";
}

std::string bounded_compile_log(std::string log, std::size_t limit)
{
    if (log.size() <= limit)
        return log;
    const std::size_t head = limit / 4 * 3;
    const std::size_t tail = limit - head;
    // Cut at line ends where there is one, so no line is left half.
    std::size_t head_end = log.rfind('\n', head);
    // Without one, never inside a character (the log quotes the kernel's bytes).
    head_end = head_end == std::string::npos || head_end == 0 ? utf8_prefix(log, head).size() : head_end + 1;
    std::size_t tail_start = log.find('\n', log.size() - tail);
    if (tail_start == std::string::npos)
    {
        tail_start = log.size() - tail;
        while (tail_start < log.size() && (static_cast<unsigned char>(log[tail_start]) & 0xc0) == 0x80)
            ++tail_start;
    }
    else
        ++tail_start;
    const std::size_t left_out = tail_start - head_end;
    std::string out = log.substr(0, head_end);
    out += "[... " + std::to_string(left_out) + " bytes of the compile log left out (it is cut at " +
           mib(limit) + ") ...]\n";
    out.append(log, tail_start, std::string::npos);
    return out;
}

std::optional<std::string> limit_process_memory(std::uint64_t limit_mib)
{
    rlim_t bytes = static_cast<rlim_t>(limit_mib) << 20;
    rlimit current{};
    // A lower limit already set (by the user's shell, a batch system) stays: never raise one.
    if (::getrlimit(RLIMIT_DATA, &current) == 0 && current.rlim_max != RLIM_INFINITY &&
        current.rlim_max < bytes)
        bytes = current.rlim_max;
    const rlimit limit{bytes, bytes};
    if (::setrlimit(RLIMIT_DATA, &limit) != 0)
        return "setrlimit(RLIMIT_DATA, " + std::to_string(limit_mib) + " MiB): " + std::strerror(errno);
    return std::nullopt;
}

}  // namespace warpsmith
