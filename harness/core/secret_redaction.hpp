#pragma once

// Process-wide redaction of secrets (docs/hardening.md, "Model code reads no host file"). A kernel
// that manages to read a host file puts what it read into the compile log, and the compile log goes
// back to the model and into the run directory; so every compile log passes through
// redact_secrets() before it leaves the process that compiled it, reaches a model or is written to
// a file. The registry knows the values of the process's own secret-named environment variables
// (is_secret_variable_name) from its first use, and whatever the program registers later (the API
// key read from ./.env or from the variable --api-key-env names).
//
// Thread-safe.

#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// The text that replaces a secret.
inline constexpr std::string_view redacted_marker = "[REDACTED]";

/// True for environment variable names that hold credentials: every name ending in _API_KEY, _KEY,
/// _TOKEN, _SECRET or _PASSWORD, every OPENAI_* name, and names containing API_KEY or SECRET
/// (case-insensitive).
bool is_secret_variable_name(std::string_view name);

/// Registers one secret value. Values shorter than 8 bytes are ignored: they would redact ordinary
/// words, and real keys are long.
void register_secret(std::string value);

/// An environment (NAME=VALUE strings) without its credentials: every variable whose name
/// is_secret_variable_name() or appears in extra_secret_names, and every variable whose value is a
/// registered secret (the API key however it was named). What every child process that runs a
/// candidate's code or compiles it starts with: no worker needs a key.
std::vector<std::string> environment_without_secrets(const std::vector<std::string>& environment,
                                                     const std::vector<std::string>& extra_secret_names = {});

/// The registered secrets (those of the environment included), longest first.
std::vector<std::string> registered_secrets();

/// The parts of a secret a compiler may print on their own: every maximal run of letters and
/// digits (with and without underscores) of at least min_fragment_size bytes, shorter than the
/// secret itself. EDG reads `sk-proj-abc...` as an expression and names the identifier after the
/// last dash in its error.
inline constexpr std::size_t min_fragment_size = 12;
std::vector<std::string> secret_fragments(std::string_view secret);

/// text with every registered secret replaced by redacted_marker, and with it every one of its
/// fragments (secret_fragments).
std::string redact_secrets(std::string_view text);

/// text with every one of `secrets` (in their order: a longer one first where one holds another) replaced by
/// redacted_marker, wherever it occurs: as it is, with any of its characters written as a JSON escape
/// (\uXXXX, \/) or an HTML character reference (&#45;, &#x2d;), with spaces or line breaks between its
/// characters (a server's error page wrapping it), percent-encoded, or base64-encoded (standard or
/// URL-safe, alone or inside a longer encoded text such as "Bearer <key>": the part that encodes the
/// secret's bytes is replaced).
std::string redact_values(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace warpsmith
