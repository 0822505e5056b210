#pragma once

// API keys (SPEC §5 "openai": key from OPENAI_API_KEY or a .env file) and the redaction that keeps
// them out of every file and log line (SPEC §8). The key travels only in the Authorization header;
// records print headers through format_headers_redacted, and every text written to llm/ or a log
// also passes through a redactor that replaces the key's bytes wherever they occur (a server that
// echoes the key in an error message must not put it on disk).

#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::llm
{

/// Parses .env text: KEY=VALUE lines, optional "export ", '#' comments, values in single or double
/// quotes (double quotes understand \n, \" and \\), trailing " # comment" after unquoted values.
/// Malformed lines are skipped (a .env file belongs to many tools).
std::map<std::string, std::string> parse_dotenv(std::string_view text);

/// Where a key was found, for messages (never the key itself).
struct api_key
{
    std::string value;
    std::string source;  ///< "environment variable OPENAI_API_KEY" or "./.env (OPENAI_API_KEY)".
};

/// The key from environment variable `env_var`, else from `dotenv` (when it exists). nullopt when
/// neither has a non-empty value.
std::optional<api_key> find_api_key(const std::string& env_var, const std::filesystem::path& dotenv = ".env");

/// Replaces registered secrets with redacted_marker ("[REDACTED]") in text and JSON.
class redactor
{
public:
    /// Registers a secret; strings shorter than 8 bytes are ignored (they would redact ordinary
    /// words; real keys are long).
    void add_secret(std::string secret);
    std::string apply(std::string_view text) const;
    /// Redacts every string (and object key) inside v.
    boost::json::value apply(const boost::json::value& v) const;
    bool empty() const { return secrets_.empty(); }

private:
    std::vector<std::string> secrets_;
};

}  // namespace warpsmith::llm
