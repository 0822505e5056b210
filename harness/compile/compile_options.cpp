#include "harness/compile/compile_options.hpp"

#include <cctype>
#include <charconv>
#include <string_view>

namespace warpsmith
{

namespace
{

bool is_identifier(std::string_view s)
{
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
        return false;
    for (char c : s)
    {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    }
    return true;
}

bool is_integer(std::string_view s)
{
    if (!s.empty() && s[0] == '-')
        s.remove_prefix(1);
    if (s.empty())
        return false;
    for (char c : s)
    {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    }
    return true;
}

// Options are quoted in messages; a model may send anything, so keep the line short and printable.
std::string quoted(std::string_view option)
{
    std::string out = "'";
    for (char c : option.substr(0, 60))
        out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    if (option.size() > 60)
        out += "...";
    out += "'";
    return out;
}

std::optional<std::string> check_define(std::string_view option)
{
    std::string_view body = option.substr(2);
    auto eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    if (!is_identifier(name))
        return "option " + quoted(option) + " refused: the macro name must be an identifier (-DNAME=V)";
    // A 2 MB macro name was copied into every request file and later prompt.
    if (name.size() > max_macro_name_bytes)
        return "option " + quoted(option) + " refused: a macro name of " + std::to_string(name.size()) +
               " characters (at most " + std::to_string(max_macro_name_bytes) + ")";
    if (eq == std::string_view::npos)
        return std::nullopt;
    std::string_view value = body.substr(eq + 1);
    if (!is_integer(value) && !is_identifier(value))
    {
        return "option " + quoted(option) + " refused: a -D value must be a decimal integer or an identifier";
    }
    // The operators the include policy refuses in the source (include_policy.hpp) must not come in
    // through a define either: -DX=__has_include with `#if X(".env")` probes the file system.
    for (std::string_view op : {"__has_include", "__has_include_next", "__has_embed", "_Pragma", "__pragma"})
        if (value == op)
            return "option " + quoted(option) + " refused: a -D value may not be " + std::string(op) +
                   " (it probes files or runs pragmas; docs/compile.md)";
    return std::nullopt;
}

std::optional<std::string> check_maxrregcount(std::string_view option)
{
    std::string_view digits = option.substr(std::string_view("--maxrregcount=").size());
    int n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 1 || n > 255)
        return "option " + quoted(option) + " refused: --maxrregcount takes an integer from 1 to 255";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> check_compile_options(const std::vector<std::string>& options)
{
    for (const auto& option : options)
    {
        std::string_view o = option;
        if (o == "--use_fast_math" || o == "--extra-device-vectorization")
            continue;
        if (o.starts_with("--maxrregcount="))
        {
            if (auto why = check_maxrregcount(o))
                return why;
            continue;
        }
        if (o.starts_with("-D"))
        {
            if (auto why = check_define(o))
                return why;
            continue;
        }
        return "option " + quoted(o) +
               " refused: allowed are --use_fast_math, --maxrregcount=N, -DNAME=V, -DNAME, "
               "--extra-device-vectorization";
    }
    return std::nullopt;
}

std::optional<std::string> check_arch(const std::string& arch)
{
    // sm_XX or sm_XXX, optionally with the architecture-specific "a" suffix (sm_90a enables wgmma
    // and setmaxnreg). Family ("f") and virtual ("compute_") targets are refused: the harness
    // always loads a cubin built for exactly the device it runs on.
    std::string_view s = arch;
    bool ok = s.starts_with("sm_");
    if (ok)
    {
        s.remove_prefix(3);
        if (s.ends_with('a'))
            s.remove_suffix(1);
        ok = (s.size() == 2 || s.size() == 3) && s[0] != '0';
        for (char c : s)
            ok = ok && std::isdigit(static_cast<unsigned char>(c));
    }
    if (ok)
        return std::nullopt;
    return "architecture " + quoted(arch) + " refused: expected sm_XX or sm_XXa (e.g. sm_90, sm_90a)";
}

std::vector<std::string> define_options(const std::map<std::string, std::int64_t>& defines)
{
    std::vector<std::string> out;
    out.reserve(defines.size());
    for (const auto& [name, value] : defines)
        out.push_back("-D" + name + "=" + std::to_string(value));
    return out;
}

}  // namespace warpsmith
