#include "engine/report/markup_escape.hpp"

namespace warpsmith::report
{

namespace
{

std::string escape(std::string_view s, bool xml)
{
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (char ch : s)
    {
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
