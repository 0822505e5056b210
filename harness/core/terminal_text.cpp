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
    for_each_utf8(text,
                  [&](std::string_view bytes, std::optional<char32_t> cp)
                  {
                      // Not UTF-8 (a lone 0x9b is CSI to a terminal in an 8-bit mode), the C0
                      // controls but newline and tab, DEL and the C1 controls: their bytes in hex.
                      if (!cp || (*cp < 0x20 && *cp != '\n' && *cp != '\t') || (*cp >= 0x7f && *cp <= 0x9f))
                          for (const char c : bytes)
                              append_escaped(out, static_cast<unsigned char>(c));
                      else if (is_invisible_format(*cp))
                          out += code_point_escape(*cp);
                      else
                          out.append(bytes);
                  });
    return out;
}

}  // namespace warpsmith
