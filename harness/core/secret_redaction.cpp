#include "harness/core/secret_redaction.hpp"

#include "harness/core/digest.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>

extern char** environ;

namespace warpsmith
{

namespace
{

constexpr std::size_t min_secret_size = 8;

// The end of `secret` when it starts at text[pos], each character as it is or as a JSON escape
// \uXXXX; npos when it does not start there.
std::size_t match_end(std::string_view text, std::size_t pos, std::string_view secret)
{
    for (const char c : secret)
    {
        if (pos < text.size() && text[pos] == c)
        {
            ++pos;
            continue;
        }
        if (pos + 6 > text.size() || text[pos] != '\\' || text[pos + 1] != 'u')
            return std::string_view::npos;
        unsigned value = 0;
        for (std::size_t i = pos + 2; i < pos + 6; ++i)
        {
            const int digit = hex_digit_value(text[i]);
            if (digit < 0)
                return std::string_view::npos;
            value = value * 16 + static_cast<unsigned>(digit);
        }
        if (value != static_cast<unsigned char>(c))
            return std::string_view::npos;
        pos += 6;
    }
    return pos;
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

    void add_locked(std::string value)
    {
        if (value.size() < min_secret_size)
            return;
        if (std::find(secrets.begin(), secrets.end(), value) != secrets.end())
            return;
        secrets.push_back(std::move(value));
        std::stable_sort(secrets.begin(),
                         secrets.end(),
                         [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
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

std::string redact_secrets(std::string_view text)
{
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    return redact_values(text, r.secrets);
}

std::string redact_values(std::string_view text, const std::vector<std::string>& secrets)
{
    std::string out(text);
    for (const auto& s : secrets)
    {
        if (s.empty())
            continue;
        std::string next;
        std::size_t copied = 0;
        for (std::size_t pos = 0; pos < out.size();)
        {
            const std::size_t end =
                out[pos] == s[0] || out[pos] == '\\' ? match_end(out, pos, s) : std::string::npos;
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
