#include "engine/report/markup_escape.hpp"

#include "harness/core/utf8_text.hpp"

namespace warpsmith::report
{

namespace
{

std::string escape(std::string_view s, bool xml)
{
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for_each_utf8(s,
                  [&](std::string_view bytes, std::optional<char32_t> cp)
                  {
                      // Bytes that are not UTF-8 (a character cut in half, a Latin-1 file) and the
                      // non-characters U+FFFE/U+FFFF make an SVG unreadable: U+FFFD instead.
                      // Invisible and reordering characters would show a kernel's source in another
                      // order than the compiler reads it: written out instead of applied.
                      if (!cp || *cp == 0xfffe || *cp == 0xffff)
                          out += "\xef\xbf\xbd";
                      else if (is_invisible_format(*cp))
                          out += code_point_escape(*cp);
                      else if (*cp == '&')
                          out += "&amp;";
                      else if (*cp == '<')
                          out += "&lt;";
                      else if (*cp == '>')
                          out += "&gt;";
                      else if (*cp == '"')
                          out += "&quot;";
                      else if (*cp == '\'')
                          out += "&#39;";
                      // Control characters other than tab and newline are not allowed in XML 1.0.
                      else if (xml && *cp < 0x20 && *cp != '\n' && *cp != '\t')
                          out += ' ';
                      else
                          out.append(bytes);
                  });
    return out;
}

}  // namespace

std::string xml_escape(std::string_view s)
{
    return escape(s, true);
}

std::string html_escape(std::string_view s)
{
    return escape(s, false);
}

std::string url_path_escape(std::string_view path)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (char ch : path)
    {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~' || c == '/')
            out += ch;
        else
        {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace warpsmith::report
