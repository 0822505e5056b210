#include "agents/llm/kernel_contract.hpp"

#include <boost/regex.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace warpsmith::llm
{

std::string strip_comments(std::string_view s)
{
    std::string out(s);
    enum class st
    {
        code,
        line_comment,
        block_comment,
        string_lit,
        char_lit,
    } state = st::code;
    for (std::size_t i = 0; i < out.size(); ++i)
    {
        const char c = out[i];
        const char n = i + 1 < out.size() ? out[i + 1] : '\0';
        switch (state)
        {
            case st::code:
                if (c == '/' && n == '/')
                {
                    state = st::line_comment;
                    out[i] = ' ';
                }
                else if (c == '/' && n == '*')
                {
                    state = st::block_comment;
                    out[i] = out[i + 1] = ' ';
                    ++i;
                }
                else if (c == '"')
                    state = st::string_lit;
                else if (c == '\'')
                    state = st::char_lit;
                break;
            case st::line_comment:
                if (c == '\n')
                    state = st::code;
                else
                    out[i] = ' ';
                break;
            case st::block_comment:
                if (c == '*' && n == '/')
                {
                    out[i] = out[i + 1] = ' ';
                    ++i;
                    state = st::code;
                }
                else if (c != '\n')
                    out[i] = ' ';
                break;
            case st::string_lit:
                if (c == '\\')
                    ++i;
                else if (c == '"' || c == '\n')
                    state = st::code;
                break;
            case st::char_lit:
                if (c == '\\')
                    ++i;
                else if (c == '\'' || c == '\n')
                    state = st::code;
                break;
        }
    }
    return out;
}

namespace
{

/// Byte ranges of `extern "C" { ... }` blocks.
std::vector<std::pair<std::size_t, std::size_t>> extern_c_blocks(const std::string& code)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    // The closing brace of every '{', found in one pass (unclosed: the end of the code). Scanning
    // forward from each block's start made "extern "C" {" repeated without a close quadratic.
    std::unordered_map<std::size_t, std::size_t> close_of;
    std::vector<std::size_t> open_braces;
    for (std::size_t i = 0; i < code.size(); ++i)
    {
        if (code[i] == '{')
            open_braces.push_back(i);
        else if (code[i] == '}' && !open_braces.empty())
        {
            close_of[open_braces.back()] = i;
            open_braces.pop_back();
        }
    }
    static const boost::regex block(R"re(extern\s+"C"\s*\{)re");
    for (auto it = boost::sregex_iterator(code.begin(), code.end(), block); it != boost::sregex_iterator();
         ++it)
    {
        const std::size_t open = static_cast<std::size_t>(it->position() + it->length() - 1);
        const auto found = close_of.find(open);
        out.emplace_back(open, found == close_of.end() ? code.size() : found->second);
    }
    return out;
}

/// The text of the declaration that ends at `pos` (back to the previous ';', '{' or '}', and no
/// further than `floor`: the end of the previous __global__, so that the scans back of all
/// declarations together read the code about once).
std::string declaration_before(const std::string& code, std::size_t pos, std::size_t floor)
{
    std::size_t start = pos;
    while (start > floor && code[start - 1] != ';' && code[start - 1] != '}' && code[start - 1] != '{')
        --start;
    return code.substr(start, pos - start);
}

struct kernel_decl
{
    std::string name;
    bool extern_c = false;
};

bool ident_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Every __global__ function: the identifier before the first '(' after __global__ that does not
/// belong to an attribute (__launch_bounds__(...), __attribute__((...)), __align__(...)).
std::vector<kernel_decl> kernels(const std::string& code)
{
    std::vector<kernel_decl> out;
    // Which bytes lie inside an extern "C" { } block, found once (a loop over the blocks for every
    // kernel grew with kernels x blocks).
    std::vector<int> inside_c(code.size() + 1, 0);
    for (const auto& [b, e] : extern_c_blocks(code))
    {
        ++inside_c[b + 1];
        --inside_c[std::max(e, b + 1)];
    }
    for (std::size_t i = 1; i < inside_c.size(); ++i)
        inside_c[i] += inside_c[i - 1];
    static const boost::regex extern_c(R"re(extern\s+"C")re");
    std::size_t pos = 0;
    std::size_t previous_end = 0;
    while ((pos = code.find("__global__", pos)) != std::string::npos)
    {
        const std::size_t at = pos;
        const std::size_t floor = previous_end;
        pos += 10;
        previous_end = pos;
        if ((at > 0 && ident_char(code[at - 1])) || (pos < code.size() && ident_char(code[pos])))
            continue;
        std::size_t i = pos;
        std::string name;
        // The declaration ends at ';', '{' or '}', and at the latest where the next __global__
        // starts: so the scans of all declarations together read the code about once
        // ("__global__ " repeated 100,000 times took minutes of the event loop).
        const std::size_t next = code.find("__global__", pos);
        const std::size_t end = next == std::string::npos ? code.size() : next;
        while (i < end && code[i] != ';' && code[i] != '{' && code[i] != '}')
        {
            if (code[i] == '(')
            {
                // The identifier just before this parenthesis.
                std::size_t e = i;
                while (e > pos && std::isspace(static_cast<unsigned char>(code[e - 1])))
                    --e;
                std::size_t b = e;
                while (b > pos && ident_char(code[b - 1]))
                    --b;
                const std::string id = code.substr(b, e - b);
                if (id == "__launch_bounds__" || id == "__attribute__" || id == "__align__" ||
                    id == "alignas" || id == "__maxnreg__" || id == "__cluster_dims__")
                {
                    int depth = 0;
                    for (; i < end; ++i)
                    {
                        if (code[i] == '(')
                            ++depth;
                        else if (code[i] == ')' && --depth == 0)
                            break;
                    }
                    ++i;
                    continue;
                }
                name = id;
                break;
            }
            ++i;
        }
        if (name.empty())
            continue;
        kernel_decl k;
        k.name = name;
        const auto decl = declaration_before(code, at, floor) + code.substr(at, i - at);
        k.extern_c = boost::regex_search(decl, extern_c) || inside_c[at] > 0;
        out.push_back(std::move(k));
    }
    return out;
}

}  // namespace

std::optional<std::string> kernel_source_too_large(std::string_view source)
{
    if (source.size() <= max_kernel_source_bytes)
        return std::nullopt;
    return "kernel_source is " + std::to_string(source.size()) + " bytes; a kernel may have at most " +
           std::to_string(max_kernel_source_bytes);
}

std::vector<std::string> find_kernel_entries(std::string_view source)
{
    std::vector<std::string> out;
    for (const auto& k : kernels(strip_comments(source)))
        if (k.extern_c)
            out.push_back(k.name);
    return out;
}

std::vector<std::string> check_kernel_contract(std::string_view source, std::string_view entry)
{
    std::vector<std::string> problems;
    if (auto too_large = kernel_source_too_large(source))
    {
        problems.push_back(std::move(*too_large));
        return problems;
    }
    const std::string code = strip_comments(source);
    if (code.find_first_not_of(" \t\r\n") == std::string::npos)
    {
        problems.push_back("kernel_source is empty");
        return problems;
    }
    bool found = false, found_c = false;
    std::vector<std::string> names;
    for (const auto& k : kernels(code))
    {
        names.push_back(k.name);
        if (k.name == entry)
        {
            found = true;
            found_c = found_c || k.extern_c;
        }
    }
    if (!found)
    {
        std::string list;
        for (const auto& n : names)
            list += (list.empty() ? "" : ", ") + n;
        problems.push_back("kernel_source defines no __global__ function named '" + std::string(entry) + "'" +
                           (list.empty() ? std::string(" (it defines no __global__ function at all)")
                                         : " (it defines: " + list + "); 'entry' must name the kernel"));
    }
    else if (!found_c)
        problems.push_back("the entry '" + std::string(entry) +
                           "' is not declared extern \"C\" (write: extern \"C\" __global__ void " +
                           std::string(entry) + "(...)), so its name would be mangled");
    if (code.find("<<<") != std::string::npos)
        problems.push_back(
            "kernel_source launches a kernel (<<<...>>>): dynamic parallelism and host code are not "
            "allowed; the harness launches the entry with your launch plan");
    static const boost::regex main_fn(R"(\bint\s+main\s*\()");
    if (boost::regex_search(code, main_fn))
        problems.push_back("kernel_source contains host code (a main function); give device code only");
    static const boost::regex runtime_api(
        R"(\b(cudaMalloc\w*|cudaMemcpy\w*|cudaMemset\w*|cudaFree\w*|cudaDeviceSynchronize|cudaLaunchKernel\w*|cudaStreamCreate\w*|cudaGraph\w*|cudaEvent\w*)\s*\()");
    boost::smatch m;
    if (boost::regex_search(code, m, runtime_api))
        problems.push_back("kernel_source calls the CUDA runtime API (" + m[1].str() +
                           "); give device code only: the harness allocates, copies and launches");
    return problems;
}

}  // namespace warpsmith::llm
