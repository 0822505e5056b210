#include "harness/core/utf8_text.hpp"

#include <cstdio>

namespace warpsmith
{

namespace
{

bool continuation(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

void append_u_escape(std::string& out, char32_t c)
{
    char text[8];
    std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(c));
    out += text;
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view s, std::size_t i)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = at(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;  // a continuation byte, an overlong lead (C0, C1) or above U+10FFFF (F5..FF)
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k)
        if (!continuation(at(i + k)))
            return 0;
    const unsigned char second = at(i + 1);
    if (c == 0xe0 && second < 0xa0)
        return 0;  // overlong
    if (c == 0xed && second > 0x9f)
        return 0;  // a surrogate
    if (c == 0xf0 && second < 0x90)
        return 0;  // overlong
    if (c == 0xf4 && second > 0x8f)
        return 0;  // above U+10FFFF
    return n;
}

char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n)
{
    const auto at = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[k])); };
    switch (n)
    {
        case 1:
            return at(i);
        case 2:
            return ((at(i) & 0x1f) << 6) | (at(i + 1) & 0x3f);
        case 3:
            return ((at(i) & 0x0f) << 12) | ((at(i + 1) & 0x3f) << 6) | (at(i + 2) & 0x3f);
        default:
            return ((at(i) & 0x07) << 18) | ((at(i + 1) & 0x3f) << 12) | ((at(i + 2) & 0x3f) << 6) |
                   (at(i + 3) & 0x3f);
    }
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes)
{
    if (s.size() <= max_bytes)
        return s;
    std::size_t cut = max_bytes;
    // Back off over continuation bytes (at most three in well-formed text) to a character's start.
    for (int k = 0; k < 3 && cut > 0 && continuation(static_cast<unsigned char>(s[cut])); ++k)
        --cut;
    if (continuation(static_cast<unsigned char>(s[cut])))
        cut = max_bytes;  // not UTF-8 here anyway: cut where asked, valid_utf8 repairs it
    return s.substr(0, cut);
}

std::string valid_utf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for_each_utf8(s,
                  [&](std::string_view bytes, std::optional<char32_t> cp)
                  { cp ? out.append(bytes) : out.append("\xef\xbf\xbd"); });
    return out;
}

bool is_bidi_control(char32_t c)
{
    return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

bool is_invisible_format(char32_t c)
{
    if (is_bidi_control(c))
        return true;
    struct range
    {
        char32_t first, last;
    };
    static constexpr range ranges[] = {
        {0x00ad, 0x00ad},
        {0x034f, 0x034f},
        {0x115f, 0x1160},
        {0x17b4, 0x17b5},
        {0x180b, 0x180f},
        {0x200b, 0x200f},
        {0x2028, 0x202e},
        {0x2060, 0x206f},
        {0x3164, 0x3164},
        {0xfe00, 0xfe0f},
        {0xfeff, 0xfeff},
        {0xffa0, 0xffa0},
        {0xfff0, 0xfffb},
        {0x1bca0, 0x1bca3},
        {0x1d173, 0x1d17a},
        {0xe0000, 0xe0fff},
    };
    for (const auto& r : ranges)
        if (c >= r.first && c <= r.last)
            return true;
    return false;
}

std::string code_point_escape(char32_t c)
{
    char text[16];
    if (c <= 0xffff)
        std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(c));
    else
        std::snprintf(text, sizeof text, "\\U%08x", static_cast<unsigned>(c));
    return text;
}

std::string json_safe_text(std::string_view serialized)
{
    std::string out;
    out.reserve(serialized.size());
    for_each_utf8(serialized,
                  [&](std::string_view bytes, std::optional<char32_t> cp)
                  {
                      if (!cp)
                          out += "\\ufffd";
                      else if (*cp == 0x7f || (*cp >= 0x80 && *cp <= 0x9f) || is_invisible_format(*cp))
                      {
                          if (*cp <= 0xffff)
                              append_u_escape(out, *cp);
                          else
                          {
                              // JSON escapes a character above U+FFFF as its UTF-16 surrogate pair.
                              const char32_t v = *cp - 0x10000;
                              append_u_escape(out, 0xd800 + (v >> 10));
                              append_u_escape(out, 0xdc00 + (v & 0x3ff));
                          }
                      }
                      else
                          out.append(bytes);
                  });
    return out;
}

}  // namespace warpsmith
