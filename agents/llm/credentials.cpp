#include "agents/llm/credentials.hpp"

#include "harness/core/secret_redaction.hpp"

#include <boost/json.hpp>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace warpsmith::llm
{

namespace json = boost::json;

namespace
{

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool is_key(std::string_view k)
{
    if (k.empty())
        return false;
    for (char c : k)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
            return false;
    return true;
}

}  // namespace

std::map<std::string, std::string> parse_dotenv(std::string_view text)
{
    std::map<std::string, std::string> out;
    std::size_t pos = 0;
    while (pos < text.size())
    {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = trim(text.substr(pos, end - pos));
        pos = end + 1;
        if (line.empty() || line.front() == '#')
            continue;
        if (line.substr(0, 7) == "export ")
            line = trim(line.substr(7));
        const auto eq = line.find('=');
        if (eq == std::string_view::npos)
            continue;
        const auto key = trim(line.substr(0, eq));
        auto value = trim(line.substr(eq + 1));
        if (!is_key(key))
            continue;
        std::string v;
        if (!value.empty() && (value.front() == '"' || value.front() == '\''))
        {
            const char q = value.front();
            std::size_t i = 1;
            bool closed = false;
            for (; i < value.size(); ++i)
            {
                char c = value[i];
                if (c == q)
                {
                    closed = true;
                    break;
                }
                if (q == '"' && c == '\\' && i + 1 < value.size())
                {
                    const char n = value[++i];
                    v += n == 'n' ? '\n' : n;
                    continue;
                }
                v += c;
            }
            if (!closed)
                continue;
        }
        else
        {
            if (const auto hash = value.find(" #"); hash != std::string_view::npos)
                value = trim(value.substr(0, hash));
            v = std::string(value);
        }
        out[std::string(key)] = v;
    }
    return out;
}

std::optional<api_key> find_api_key(const std::string& env_var, const std::filesystem::path& dotenv)
{
    if (const char* v = std::getenv(env_var.c_str()); v && *v)
        return api_key{v, "environment variable " + env_var};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dotenv, ec))
        return std::nullopt;
    std::ifstream f(dotenv, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const auto vars = parse_dotenv(ss.str());
    if (auto it = vars.find(env_var); it != vars.end() && !it->second.empty())
        return api_key{it->second, dotenv.string() + " (" + env_var + ")"};
    return std::nullopt;
}

void redactor::add_secret(std::string secret)
{
    if (secret.size() < 8)
        return;
    for (const auto& s : secrets_)
        if (s == secret)
            return;
    secrets_.push_back(std::move(secret));
}

std::string redactor::apply(std::string_view text) const
{
    return redact_values(text, secrets_);
}

json::value redactor::apply(const json::value& v) const
{
    if (secrets_.empty())
        return v;
    switch (v.kind())
    {
        case json::kind::string:
            return json::value(apply(std::string_view(v.get_string())));
        case json::kind::array:
        {
            json::array a;
            a.reserve(v.get_array().size());
            for (const auto& x : v.get_array())
                a.push_back(apply(x));
            return a;
        }
        case json::kind::object:
        {
            json::object o;
            for (const auto& kv : v.get_object())
                o[apply(std::string_view(kv.key()))] = apply(kv.value());
            return o;
        }
        default:
            return v;
    }
}

}  // namespace warpsmith::llm
