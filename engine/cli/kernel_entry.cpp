#include "engine/cli/kernel_entry.hpp"

#include "harness/core/error.hpp"

#include <boost/regex.hpp>

#include <algorithm>

namespace warpsmith
{

namespace
{

/// The source with comments replaced by spaces (string literals are kept as they are: an
/// `extern "C"` inside a string is not worth a tokenizer).
std::string strip_comments(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/')
        {
            while (i < s.size() && s[i] != '\n')
                ++i;
            out += '\n';
        }
        else if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*')
        {
            i += 2;
            while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/'))
                ++i;
            ++i;
            out += ' ';
        }
        else
            out += s[i];
    }
    return out;
}

}  // namespace

std::vector<std::string> find_extern_c_kernels(std::string_view source)
{
    // extern "C" <qualifiers> void <qualifiers> name (
    static const boost::regex pattern(
        R"(extern\s*"C"\s+((?:[A-Za-z_]\w*(?:\s*\([^()]*\))?\s+)*?)void\s+((?:[A-Za-z_]\w*\s*\([^()]*\)\s*)*)([A-Za-z_]\w*)\s*\()");
    std::string text = strip_comments(source);
    std::vector<std::string> out;
    // Boost.Regex: no recursion per character (std::regex overflowed the stack on long runs of
    // spaces); a match too costly to finish ends the scan with the kernels found so far.
    try
    {
        for (boost::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
        {
            const auto& m = *it;
            std::string quals = m[1].str() + " " + m[2].str();
            if (quals.find("__global__") == std::string::npos)
                continue;
            std::string name = m[3].str();
            if (std::find(out.begin(), out.end(), name) == out.end())
                out.push_back(name);
        }
    }
    catch (const std::runtime_error&)
    {
    }
    return out;
}

std::string choose_entry(std::string_view source,
                         const std::optional<std::string>& entry,
                         const std::string& origin,
                         const std::string& preferred)
{
    if (entry && !entry->empty())
        return *entry;
    auto kernels = find_extern_c_kernels(source);
    if (kernels.size() == 1)
        return kernels.front();
    if (kernels.empty())
        throw user_error(origin + ": no extern \"C\" __global__ function found; name the entry with --entry");
    if (!preferred.empty() && std::find(kernels.begin(), kernels.end(), preferred) != kernels.end())
        return preferred;
    std::string names;
    for (const auto& k : kernels)
        names += (names.empty() ? "" : ", ") + k;
    throw user_error(origin + ": several extern \"C\" __global__ functions (" + names +
                     "); choose one with --entry");
}

}  // namespace warpsmith
