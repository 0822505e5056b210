#include "harness/core/terminal_text.hpp"

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
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            append_escaped(out, c);
        else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                 static_cast<unsigned char>(text[i + 1]) <= 0x9f)
        {
            append_escaped(out, c);
            append_escaped(out, static_cast<unsigned char>(text[++i]));
        }
        else
            out += static_cast<char>(c);
    }
    return out;
}

}  // namespace warpsmith
