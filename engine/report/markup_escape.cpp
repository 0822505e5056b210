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
    for (std::size_t i = 0; i < s.size();)
    {
        const char ch = s[i];
        if (static_cast<unsigned char>(ch) >= 0x80)
        {
            // Bytes that are not UTF-8 (a character cut in half, a Latin-1 file) and the
            // non-characters U+FFFE/U+FFFF make an SVG unreadable: U+FFFD instead. The
            // bidirectional controls would show a kernel's source in another order than the
            // compiler reads it: written out instead of applied.
            const std::size_t n = utf8_sequence_length(s, i);
            const char32_t cp = n == 0 ? 0 : utf8_code_point(s, i, n);
            if (n == 0 || cp == 0xfffe || cp == 0xffff)
                out += "\xef\xbf\xbd";
            else if (is_invisible_format(cp))
                out += code_point_escape(cp);
            else
                out.append(s.substr(i, n));
            i += n == 0 ? 1 : n;
            continue;
        }
        switch (ch)
        {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                // Control characters other than tab and newline are not allowed in XML 1.0.
                if (xml && static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
                    out += ' ';
                else
                    out += ch;
        }
        ++i;
    }
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
