#include "harness/core/terminal_text.hpp"

#include "harness/core/utf8_text.hpp"

namespace warpsmith
{

namespace
{

void append_escaped(std::string& out, unsigned char c)
{
    static constexpr char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 0xf];
}

}  // namespace

std::string terminal_text(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80)
        {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                append_escaped(out, c);
            else
                out += static_cast<char>(c);
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0)
        {
            // Not UTF-8: a lone 0x9b is CSI to a terminal in an 8-bit mode.
            append_escaped(out, c);
            ++i;
            continue;
        }
        const char32_t cp = utf8_code_point(text, i, n);
        if (cp <= 0x9f)  // the C1 controls
            for (std::size_t k = 0; k < n; ++k)
                append_escaped(out, static_cast<unsigned char>(text[i + k]));
        else if (is_invisible_format(cp))
            out += code_point_escape(cp);
        else
            out.append(text.substr(i, n));
        i += n;
    }
    return out;
}

}  // namespace warpsmith
