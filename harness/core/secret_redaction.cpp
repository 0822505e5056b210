#include "harness/core/secret_redaction.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>

extern char** environ;

namespace warpsmith
{

namespace
{

constexpr std::size_t min_secret_size = 8;

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

std::vector<std::string> registered_secrets()
{
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    return r.secrets;
}

std::string redact_secrets(std::string_view text)
{
    std::string out(text);
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    for (const auto& s : r.secrets)
    {
        for (std::size_t pos = out.find(s); pos != std::string::npos;
             pos = out.find(s, pos + redacted_marker.size()))
            out.replace(pos, s.size(), redacted_marker);
    }
    return out;
}

}  // namespace warpsmith
