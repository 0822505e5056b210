#include "harness/core/secret_redaction.hpp"

#include "harness/core/digest.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>
#include <utility>

extern char** environ;

namespace warpsmith
{

namespace
{

constexpr std::size_t min_secret_size = 8;

// One character of an echoed secret written as an escape: JSON's \uXXXX or \/, or an HTML
// character reference (&#45; or &#x2d;). The value and the escape's length, or nothing.
std::optional<std::pair<unsigned, std::size_t>> escaped_char(std::string_view text, std::size_t pos)
{
    if (pos + 1 < text.size() && text[pos] == '\\' && text[pos + 1] == '/')
        return std::pair<unsigned, std::size_t>{'/', 2};
    if (pos + 6 <= text.size() && text[pos] == '\\' && text[pos + 1] == 'u')
    {
        unsigned value = 0;
        for (std::size_t i = pos + 2; i < pos + 6; ++i)
        {
            const int digit = hex_digit_value(text[i]);
            if (digit < 0)
                return std::nullopt;
            value = value * 16 + static_cast<unsigned>(digit);
        }
        return std::pair<unsigned, std::size_t>{value, 6};
    }
    if (pos + 2 < text.size() && text[pos] == '&' && text[pos + 1] != '#')
    {
        // The named references of the characters keys are made of.
        static constexpr std::pair<std::string_view, char> named[] = {{"&hyphen;", '-'},
                                                                      {"&dash;", '-'},
                                                                      {"&sol;", '/'},
                                                                      {"&plus;", '+'},
                                                                      {"&equals;", '='},
                                                                      {"&lowbar;", '_'},
                                                                      {"&period;", '.'},
                                                                      {"&colon;", ':'},
                                                                      {"&percnt;", '%'},
                                                                      {"&num;", '#'},
                                                                      {"&amp;", '&'},
                                                                      {"&tilde;", '~'}};
        for (const auto& [name, c] : named)
            if (text.substr(pos, name.size()) == name)
                return std::pair<unsigned, std::size_t>{static_cast<unsigned char>(c), name.size()};
        return std::nullopt;
    }
    if (pos + 3 < text.size() && text[pos] == '&' && text[pos + 1] == '#')
    {
        const bool hex = text[pos + 2] == 'x' || text[pos + 2] == 'X';
        unsigned value = 0;
        std::size_t i = pos + (hex ? 3 : 2);
        const std::size_t first = i;
        for (; i < text.size() && i < first + 7 && text[i] != ';'; ++i)
        {
            const int digit = hex ? hex_digit_value(text[i])
                                  : (std::isdigit(static_cast<unsigned char>(text[i])) ? text[i] - '0' : -1);
            if (digit < 0)
                return std::nullopt;
            value = value * (hex ? 16 : 10) + static_cast<unsigned>(digit);
        }
        if (i == first || i >= text.size() || text[i] != ';')
            return std::nullopt;
        return std::pair<unsigned, std::size_t>{value, i + 1 - pos};
    }
    return std::nullopt;
}

// What a server's page may put inside a key it echoes without changing it: spaces and line
// breaks, JSON's \n \r \t, an HTML <br>, and the invisible characters that break a line or a
// word (U+00AD, U+200B..U+200D, U+2060, U+FEFF). The length at text[pos], 0 for none.
std::size_t wrap_length(std::string_view text, std::size_t pos)
{
    const char c = text[pos];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        return 1;
    const std::string_view rest = text.substr(pos);
    for (const std::string_view w : {std::string_view("\\n"),
                                     std::string_view("\\r"),
                                     std::string_view("\\t"),
                                     std::string_view("<br>"),
                                     std::string_view("<br/>"),
                                     std::string_view("<br />"),
                                     std::string_view("\xc2\xad"),
                                     std::string_view("\xe2\x80\x8b"),
                                     std::string_view("\xe2\x80\x8c"),
                                     std::string_view("\xe2\x80\x8d"),
                                     std::string_view("\xe2\x81\xa0"),
                                     std::string_view("\xef\xbb\xbf")})
        if (rest.substr(0, w.size()) == w)
            return w.size();
    return 0;
}

bool same_letter(char a, char b)
{
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

// The end of `secret` when it starts at text[pos], each character as it is (letters in either
// case: a page may show the key upper-cased) or escaped (escaped_char), with what wrap_length
// allows between characters; npos when it does not start there.
std::size_t match_end(std::string_view text, std::size_t pos, std::string_view secret)
{
    for (std::size_t k = 0; k < secret.size(); ++k)
    {
        const char c = secret[k];
        if (k > 0 && pos < text.size() && !same_letter(text[pos], c))
            for (std::size_t w; pos < text.size() && (w = wrap_length(text, pos)) > 0;)
                pos += w;
        if (pos < text.size() && same_letter(text[pos], c))
        {
            ++pos;
            continue;
        }
        const auto escaped = pos < text.size() ? escaped_char(text, pos) : std::nullopt;
        if (!escaped || !same_letter(static_cast<char>(escaped->first), c) || escaped->first > 0x7f)
            return std::string_view::npos;
        pos += escaped->second;
    }
    return pos;
}

// The forms a server may echo a secret in besides its own: percent-encoded, hex,
// and base64, standard and URL-safe, at each of the three byte alignments the secret can have
// inside a longer encoded text ("Bearer sk-..." encoded whole), cut to the characters that encode
// the secret's bytes alone.
std::vector<std::string> encoded_forms(std::string_view secret)
{
    std::vector<std::string> out;
    // Percent-encoded where that differs (reserved characters only, and every byte), and hex.
    // Matching ignores case, so upper-case escapes and hex are found too.
    static constexpr char hex[] = "0123456789abcdef";
    std::string percent, percent_all, hex_form;
    for (const char ch : secret)
    {
        const auto c = static_cast<unsigned char>(ch);
        const char digits[2] = {hex[c >> 4], hex[c & 15]};
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
            percent += ch;
        else
            percent.append("%").append(digits, 2);
        percent_all.append("%").append(digits, 2);
        hex_form.append(digits, 2);
    }
    if (percent != secret)
        out.push_back(percent);
    out.push_back(hex_form);
    out.push_back(percent_all);
    for (std::size_t align = 0; align < 3; ++align)
    {
        std::string bytes(align, '\0');
        bytes.append(secret);
        bytes.append(2, '\0');
        const std::string encoded = base64_encode(bytes);
        // Character j covers bits [6j, 6j + 6); keep those inside the secret's bits.
        const std::size_t first = (8 * align + 5) / 6;
        const std::size_t last = 8 * (align + secret.size()) / 6;  // one past
        if (last <= first || last > encoded.size())
            continue;
        std::string form = encoded.substr(first, last - first);
        out.push_back(form);
        std::string url_safe = form;
        std::replace(url_safe.begin(), url_safe.end(), '+', '-');
        std::replace(url_safe.begin(), url_safe.end(), '/', '_');
        if (url_safe != form)
            out.push_back(url_safe);
    }
    return out;
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

struct registry
{
    std::mutex mutex;
    std::vector<std::string>
        secrets;  // Longest first, so that a secret containing another is replaced whole.
    // What redact_secrets replaces: the secrets and their fragments (secret_fragments), longest first.
    std::vector<std::string> redacted;

    void add_locked(std::string value)
    {
        if (value.size() < min_secret_size)
            return;
        if (std::find(secrets.begin(), secrets.end(), value) != secrets.end())
            return;
        const auto longest_first = [](const std::string& a, const std::string& b)
        { return a.size() > b.size(); };
        for (auto& part : secret_fragments(value))
            if (std::find(redacted.begin(), redacted.end(), part) == redacted.end())
                redacted.push_back(std::move(part));
        if (std::find(redacted.begin(), redacted.end(), value) == redacted.end())
            redacted.push_back(value);
        std::stable_sort(redacted.begin(), redacted.end(), longest_first);
        secrets.push_back(std::move(value));
        std::stable_sort(secrets.begin(), secrets.end(), longest_first);
    }

    registry()
    {
        // The process's own credentials are known from the start, so that a process which never
        // registers anything (a worker, `warpsmith compile`) still redacts them.
        for (char** e = environ; e && *e; ++e)
        {
            std::string_view entry = *e;
            auto eq = entry.find('=');
            if (eq == std::string_view::npos)
                continue;
            if (is_secret_variable_name(entry.substr(0, eq)))
                add_locked(std::string(entry.substr(eq + 1)));
        }
    }
};

registry& the_registry()
{
    static registry r;
    return r;
}

}  // namespace

bool is_secret_variable_name(std::string_view name)
{
    const std::string n = upper(name);
    const std::string_view v = n;
    for (std::string_view suffix : {"_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD"})
    {
        if (v.ends_with(suffix))
            return true;
    }
    return v.starts_with("OPENAI_") || v.find("API_KEY") != std::string_view::npos ||
           v.find("APIKEY") != std::string_view::npos || v.find("SECRET") != std::string_view::npos;
}

void register_secret(std::string value)
{
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    r.add_locked(std::move(value));
}

std::vector<std::string> environment_without_secrets(const std::vector<std::string>& environment,
                                                     const std::vector<std::string>& extra_secret_names)
{
    const auto secrets = registered_secrets();
    std::vector<std::string> out;
    for (const auto& entry : environment)
    {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0)
            continue;
        const std::string_view name = std::string_view(entry).substr(0, eq);
        const std::string_view value = std::string_view(entry).substr(eq + 1);
        if (is_secret_variable_name(name))
            continue;
        if (std::find(extra_secret_names.begin(), extra_secret_names.end(), name) != extra_secret_names.end())
            continue;
        if (std::find(secrets.begin(), secrets.end(), value) != secrets.end())
            continue;
        out.push_back(entry);
    }
    return out;
}

std::vector<std::string> registered_secrets()
{
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    return r.secrets;
}

std::vector<std::string> secret_fragments(std::string_view secret)
{
    std::vector<std::string> out;
    for (const bool underscore : {true, false})
    {
        std::size_t start = 0;
        for (std::size_t i = 0; i <= secret.size(); ++i)
        {
            const bool part = i < secret.size() && (std::isalnum(static_cast<unsigned char>(secret[i])) ||
                                                    (underscore && secret[i] == '_'));
            if (part)
                continue;
            if (i - start >= min_fragment_size && i - start < secret.size())
                out.emplace_back(secret.substr(start, i - start));
            start = i + 1;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string redact_secrets(std::string_view text)
{
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    return redact_values(text, r.redacted);
}

std::string redact_values(std::string_view text, const std::vector<std::string>& secrets)
{
    std::vector<std::string> forms;
    for (const auto& s : secrets)
    {
        if (s.empty())
            continue;
        forms.push_back(s);
        for (auto& f : encoded_forms(s))
            if (f.size() >= min_secret_size)
                forms.push_back(std::move(f));
    }
    std::string out(text);
    for (const auto& s : forms)
    {
        std::string next;
        std::size_t copied = 0;
        for (std::size_t pos = 0; pos < out.size();)
        {
            const std::size_t end = same_letter(out[pos], s[0]) || out[pos] == '\\' || out[pos] == '&'
                                        ? match_end(out, pos, s)
                                        : std::string::npos;
            if (end == std::string::npos)
            {
                ++pos;
                continue;
            }
            next.append(out, copied, pos - copied).append(redacted_marker);
            copied = pos = end;
        }
        if (copied == 0)
            continue;
        next.append(out, copied, std::string::npos);
        out = std::move(next);
    }
    return out;
}

}  // namespace warpsmith
