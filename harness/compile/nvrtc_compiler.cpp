#include "harness/compile/nvrtc_compiler.hpp"

#include "harness/compile/compile_limits.hpp"
#include "harness/compile/compile_options.hpp"
#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/cubin_symbols.hpp"
#include "harness/compile/include_policy.hpp"
#include "harness/compile/ptxas_report.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/core/utf8_text.hpp"

#include <boost/regex.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <nvrtc.h>
#include <system_error>

namespace warpsmith
{

namespace
{

// Part of every cache key: bump it whenever the fixed options or the way an output is derived
// from NVRTC's results change, so that stale entries are never served.
// Format 3 adds the toolkit's cccl/ include directory: a kernel including <cuda/std/...> failed to
// compile before and must not be served that failure from the cache. Format 4: a kernel addressing
// its parameter space through a register is refused (ptx_parameter_space_refusal); an older entry
// would still serve its cubin.
constexpr std::string_view key_format =
    "warpsmith-compile-4 -lineinfo --ptxas-options=-v -std=c++17 --no-cache -I<include>/cccl";

[[noreturn]] void throw_nvrtc(nvrtcResult r, std::string_view call)
{
    throw_system_error(errc::nvrtc_failure, std::string(call) + ": " + nvrtcGetErrorString(r));
}

void check(nvrtcResult r, std::string_view call)
{
    if (r != NVRTC_SUCCESS)
        throw_nvrtc(r, call);
}

// NVRTC dlopens libnvrtc-builtins.so.<major>.<minor> by name at its first compile, so the loader
// searches only its default places (ld.so.conf, LD_LIBRARY_PATH), never the RUNPATH that found
// libnvrtc itself. A toolkit the loader is not configured for (a runfile install without ldconfig,
// a toolkit mounted into a chroot) then fails every compile with NVRTC_ERROR_BUILTIN_OPERATION_FAILURE.
// Loading the builtins first from beside the loaded libnvrtc lets NVRTC's own dlopen find them
// already loaded, by their soname. When that file is absent, NVRTC's search is left as it was.
void load_nvrtc_builtins_beside_nvrtc()
{
    static const bool loaded = []
    {
        Dl_info info{};
        int major = 0, minor = 0;
        if (::dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || !info.dli_fname ||
            nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
            return false;
        std::error_code ec;
        const auto nvrtc = std::filesystem::canonical(info.dli_fname, ec);
        if (ec)
            return false;
        const auto builtins = nvrtc.parent_path() /
                              ("libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor));
        const bool ok = ::dlopen(builtins.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
        if (!ok)
            log_debug("nvrtc: " + builtins.string() + " not loaded; NVRTC looks for its builtins itself");
        return ok;
    }();
    (void)loaded;
}

class program
{
public:
    program(const std::string& source, const std::string& name)
    {
        load_nvrtc_builtins_beside_nvrtc();
        check(nvrtcCreateProgram(&handle_, source.c_str(), name.c_str(), 0, nullptr, nullptr),
              "nvrtcCreateProgram");
    }
    ~program() { nvrtcDestroyProgram(&handle_); }
    program(const program&) = delete;
    program& operator=(const program&) = delete;
    nvrtcProgram get() const { return handle_; }

private:
    nvrtcProgram handle_ = nullptr;
};

std::string program_log(nvrtcProgram p)
{
    std::size_t size = 0;
    check(nvrtcGetProgramLogSize(p, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0)
        check(nvrtcGetProgramLog(p, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && log.back() == '\0')
        log.pop_back();
    return log;
}

std::size_t program_cubin_size(nvrtcProgram p)
{
    std::size_t size = 0;
    check(nvrtcGetCUBINSize(p, &size), "nvrtcGetCUBINSize");
    return size;
}

std::string program_cubin(nvrtcProgram p)
{
    const std::size_t size = program_cubin_size(p);
    std::string cubin(size, '\0');
    if (size > 0)
        check(nvrtcGetCUBIN(p, cubin.data()), "nvrtcGetCUBIN");
    return cubin;
}

}  // namespace

bool ptx_addresses_local_memory(std::string_view ptx)
{
    return ptx.find(".local") != std::string_view::npos;
}

std::optional<std::string> ptx_parameter_space_refusal(std::string_view ptx)
{
    // A kernel's parameters live in the launch's constant bank next to the driver's own words (the
    // launch's dimensions, the local and shared windows), and the parameter memory of queued
    // launches lies in global memory: a parameter address in a register (a __grid_constant__
    // parameter whose address is taken, or inline asm) reads either at any offset.
    static const boost::regex generic(R"(\bcvta(\.to)?\.param\b)");
    static const boost::regex computed(R"(\b(ld|st)\.param[^;\[]*\[\s*%)");
    if (boost::regex_search(ptx.begin(), ptx.end(), generic))
        return std::string(
            "the kernel makes a generic address of its parameter space (cvta.param: a "
            "__grid_constant__ parameter whose address is taken, or inline asm); refused, "
            "since that address reaches other launches' parameters; pass values, not "
            "their addresses");
    if (boost::regex_search(ptx.begin(), ptx.end(), computed))
        return std::string(
            "the kernel reads or writes parameter space at a computed address (ld.param or "
            "st.param through a register: a __grid_constant__ parameter whose address is "
            "taken, or inline asm); refused, since that reaches the driver's words beside "
            "the parameters; pass values, not their addresses");
    // By name with an offset (inline asm can write [k_param_0+-64]): inside the named kernel
    // parameter only. The kernels' parameters and their sizes come from their .entry declarations.
    static const boost::regex declared(
        R"(\.param\s+(?:\.align\s+\d+\s+)?\.([busf])(8|16|32|64)\s+(?:\.ptr(?:\s+\.\w+)*(?:\s+\.align\s+\d+)?\s+)?([A-Za-z_$%][\w$]*)\s*(?:\[\s*(\d+)\s*\])?)");
    std::map<std::string, std::uint64_t, std::less<>> kernel_params;
    for (std::size_t at = 0; (at = ptx.find(".entry", at)) != std::string_view::npos;)
    {
        const std::size_t open = ptx.find('(', at), close = ptx.find(')', at);
        if (open == std::string_view::npos || close == std::string_view::npos || close < open)
            break;
        const std::string_view list = ptx.substr(open, close - open);
        for (boost::regex_iterator<std::string_view::const_iterator> it(list.begin(), list.end(), declared),
             end;
             it != end;
             ++it)
        {
            const std::uint64_t element = std::stoull((*it)[2].str()) / 8;
            const std::uint64_t count = (*it)[4].matched ? std::stoull((*it)[4].str()) : 1;
            kernel_params[(*it)[3].str()] = element * count;
        }
        at = close;
    }
    static const boost::regex named(
        R"(\b(?:ld|st)\.param[^;\[]*\[\s*([A-Za-z_$%][\w$]*)\s*(?:([+-])\s*(-?\d+))?\s*\])");
    for (boost::regex_iterator<std::string_view::const_iterator> it(ptx.begin(), ptx.end(), named), end;
         it != end;
         ++it)
    {
        const auto found = kernel_params.find((*it)[1].str());
        if (found == kernel_params.end())
            continue;
        long long offset = 0;
        if ((*it)[3].matched)
        {
            const std::string digits = (*it)[3].str();
            offset = digits.size() > 12 ? -1 : std::stoll(digits);
            if ((*it)[2].str() == "-")
                offset = -offset;
        }
        if (offset < 0 || static_cast<std::uint64_t>(offset) >= found->second)
            return std::string("the kernel reads or writes parameter space outside its parameter ") +
                   found->first + " (ld.param or st.param at offset " + std::to_string(offset) + " of " +
                   std::to_string(found->second) +
                   " bytes); refused, since that reaches the driver's words "
                   "beside the parameters";
    }
    return std::nullopt;
}

namespace
{

std::string program_ptx(nvrtcProgram p)
{
    std::size_t size = 0;
    if (nvrtcGetPTXSize(p, &size) != NVRTC_SUCCESS)
        return {};
    std::string ptx(size, '\0');
    if (size > 0 && nvrtcGetPTX(p, ptx.data()) != NVRTC_SUCCESS)
        return {};
    while (!ptx.empty() && ptx.back() == '\0')
        ptx.pop_back();
    return ptx;
}

// The line of the log that says what went wrong, for compile_output::error (the full log travels
// alongside). Error lines look like "kernel.cu(3): error: ...", "... catastrophic error: ...",
// "nvrtc: error: ..." or "ptxas ... line 30; error   : ..."; warnings that merely mention a
// variable called "error_count" must not match.
std::string first_error_line(const std::string& log, std::string_view fallback)
{
    static const boost::regex error_line(R"((^|[:;]\s*)(catastrophic\s+)?error\b)");
    std::string_view rest = log;
    std::string_view first_nonempty;
    while (!rest.empty())
    {
        auto nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
        if (first_nonempty.empty() && line.find_first_not_of(" \t\r") != std::string_view::npos)
            first_nonempty = line;
        // Boost.Regex matches without recursion (std::regex overflowed the stack on a 200 KB run
        // of spaces in a #warning line) and throws where a match would cost too much.
        bool is_error = false;
        try
        {
            is_error = boost::regex_search(line.begin(), line.end(), error_line);
        }
        catch (const std::runtime_error&)
        {
            is_error = line.find("error") != std::string_view::npos;
        }
        if (is_error)
            return std::string(utf8_prefix(line, 300));
    }
    if (!first_nonempty.empty())
        return std::string(utf8_prefix(first_nonempty, 300));
    return std::string(fallback);
}

// A C++ kernel "sgemm(float*, ...)" appears as "_Z5sgemmPf..." (or "_ZN2ns5sgemmE..." in a
// namespace): the name preceded by its length in an Itanium-mangled symbol.
std::optional<std::string> mangled_match(const std::vector<std::string>& entries, const std::string& entry)
{
    std::string needle = std::to_string(entry.size()) + entry;
    for (const auto& e : entries)
    {
        if (e.starts_with("_Z") && e.find(needle) != std::string::npos)
            return e;
    }
    return std::nullopt;
}

// The kernels a compile reports: at most 256 (their names go to the journal and the model's
// compile tool; a few hundred bytes of templates instantiate thousands).
std::vector<std::string> bounded_entries(std::vector<std::string> entries)
{
    constexpr std::size_t kept = 256;
    if (entries.size() > kept)
        entries.resize(kept);
    return entries;
}

std::string entry_problem(const std::vector<std::string>& entries, const std::string& entry)
{
    if (auto mangled = mangled_match(entries, entry))
    {
        return "entry point '" + entry + "' exists only as the C++-mangled name " + *mangled +
               "; declare it extern \"C\"";
    }
    if (entries.empty())
        return "entry point '" + entry + "' not found; the source defines no __global__ kernel";
    // At most 20 names of at most 100 bytes: explicit template instantiations make thousands of
    // kernels with long mangled names cheaply, and this text goes to the model.
    constexpr std::size_t shown = 20;
    std::string list;
    for (std::size_t i = 0; i < entries.size() && i < shown; ++i)
        list += (list.empty() ? "" : ", ") + std::string(utf8_prefix(entries[i], 100));
    if (entries.size() > shown)
        list += ", and " + std::to_string(entries.size() - shown) + " more";
    return "entry point '" + entry + "' not found; kernels in the source: " + list;
}

std::optional<std::filesystem::path> with_fp16_header(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!dir.empty() && std::filesystem::exists(dir / "cuda_fp16.h", ec))
        return dir.lexically_normal();
    return std::nullopt;
}

std::optional<std::filesystem::path> find_cuda_include_dir()
{
    std::vector<std::filesystem::path> candidates;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    {
        if (const char* v = std::getenv(var); v && *v)
            candidates.push_back(std::filesystem::path(v) / "include");
    }
    // The toolkit that the loaded libnvrtc belongs to: <root>/lib64/libnvrtc.so -> <root>/include,
    // also for <root>/targets/x86_64-linux/lib.
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname)
    {
        std::error_code ec;
        auto lib = std::filesystem::canonical(info.dli_fname, ec);
        if (!ec)
            candidates.push_back(lib.parent_path().parent_path() / "include");
    }
#ifdef WARPSMITH_CUDA_INCLUDE_DIR
    candidates.emplace_back(WARPSMITH_CUDA_INCLUDE_DIR);
#endif
    candidates.emplace_back("/usr/local/cuda/include");
    for (const auto& c : candidates)
    {
        if (auto found = with_fp16_header(c))
            return found;
    }
    return std::nullopt;
}

}  // namespace

std::string nvrtc_version()
{
    int major = 0, minor = 0;
    check(nvrtcVersion(&major, &minor), "nvrtcVersion");
    return std::to_string(major) + "." + std::to_string(minor);
}

const std::optional<std::filesystem::path>& cuda_include_dir()
{
    static const std::optional<std::filesystem::path> dir = []
    {
        auto found = find_cuda_include_dir();
        if (found)
            log_debug("nvrtc: CUDA headers from " + found->string());
        else
            log_warn(
                "nvrtc: no CUDA toolkit include directory found (set CUDA_HOME); "
                "kernels cannot include <cuda_fp16.h>");
        return found;
    }();
    return dir;
}

std::vector<std::string> fixed_compile_options(const std::string& arch)
{
    std::vector<std::string> options{"-arch=" + arch, "-lineinfo", "--ptxas-options=-v", "-std=c++17"};
    // NVRTC 12.9+ keeps a cache of its own (next to the driver's JIT cache); a compile it serves
    // from there skips ptxas, so the log carries no -v report and the resources would read as
    // zeros. Our compile cache (keyed on everything, report included) is the only cache we want.
    static const bool nvrtc_keeps_own_cache = []
    {
        int major = 0, minor = 0;
        return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && (major > 12 || (major == 12 && minor >= 9));
    }();
    if (nvrtc_keeps_own_cache)
        options.emplace_back("--no-cache");
    for (const auto& dir : cuda_include_dirs())
        options.push_back("-I" + dir.string());
    return options;
}

std::vector<std::filesystem::path> cuda_include_dirs()
{
    static const std::vector<std::filesystem::path> dirs = []
    {
        std::vector<std::filesystem::path> out;
        if (const auto& dir = cuda_include_dir())
        {
            out.push_back(*dir);
            std::error_code ec;
            if (std::filesystem::is_directory(*dir / "cccl" / "cuda", ec))
                out.push_back(*dir / "cccl");
        }
        return out;
    }();
    return dirs;
}

nvrtc_compiler::nvrtc_compiler(std::optional<compile_cache> cache, std::size_t max_cubin_bytes)
    : cache_(std::move(cache)), max_cubin_bytes_(max_cubin_bytes)
{
}

std::string nvrtc_compiler::cache_key(const compile_request& request)
{
    sha256_builder key;
    key.add(key_format).add(request.name).add(request.source).add(request.entry);
    key.add(std::to_string(request.options.size()));
    for (const auto& option : request.options)
        key.add(option);
    key.add(request.arch).add(nvrtc_version());
    return key.hex();
}

compile_output nvrtc_compiler::compile(const compile_request& request) const
{
    if (thread_ && !thread_->on_this_thread())
        return thread_->run([&] { return compile(request); });
    // A compile worker of the compile pool closes the file system before its first compile.
    enter_compile_sandbox_if_requested(cache_ ? std::optional(cache_->dir()) : std::nullopt);
    compile_output out;
    out.arch = request.arch;
    out.key = cache_key(request);
    if (auto why = check_arch(request.arch))
    {
        out.error = *why;
        return out;
    }
    if (auto why = check_compile_options(request.options))
    {
        out.error = *why;
        return out;
    }
    // Before the cache too: a source that reads a host file is never compiled, and never served.
    if (auto why = check_include_policy(request.source))
    {
        out.error = *why;
        return out;
    }
    if (auto why = check_source_nesting(request.source))
    {
        out.error = *why;
        return out;
    }
    if (cache_)
    {
        if (auto hit = cache_->lookup(out.key))
        {
            // Entries stored before the log was bounded (or planted in the cache) are cut too.
            hit->log = bounded_compile_log(std::move(hit->log));
            hit->entries = bounded_entries(std::move(hit->entries));
            return *hit;
        }
    }

    std::vector<std::string> options = fixed_compile_options(request.arch);
    options.insert(options.end(), request.options.begin(), request.options.end());
    std::vector<const char*> argv;
    argv.reserve(options.size());
    for (const auto& o : options)
        argv.push_back(o.c_str());

    auto start = std::chrono::steady_clock::now();
    nvrtcResult result;
    std::optional<std::string> parameter_refusal;
    {
        // No lock: NVRTC's API is thread-safe. On the H200 host it serializes compiles inside a
        // process anyway (SPEC §1), and bench/compile_throughput measures exactly that, so a lock
        // of ours here would only hide what the benchmark is there to show.
        program prog(request.source, request.name);
        result = nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());
        if (result != NVRTC_SUCCESS && result != NVRTC_ERROR_COMPILATION &&
            result != NVRTC_ERROR_INVALID_OPTION)
            throw_nvrtc(result, "nvrtcCompileProgram");
        out.log = bounded_compile_log(redact_secrets(program_log(prog.get())));
        if (result == NVRTC_SUCCESS)
        {
            // Judged before the cubin is copied out of NVRTC.
            if (const std::size_t size = program_cubin_size(prog.get()); size > max_cubin_bytes_)
            {
                out.compile_ms =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                        .count();
                out.error = cubin_too_large(size, max_cubin_bytes_);
                return out;
            }
            out.cubin = program_cubin(prog.get());
            // No PTX to read (never seen with NVRTC 13): unknown, so the harness wipes.
            const std::string ptx = program_ptx(prog.get());
            out.local_memory = ptx.empty() || ptx_addresses_local_memory(ptx);
            parameter_refusal = ptx_parameter_space_refusal(ptx);
        }
    }
    out.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    if (result == NVRTC_ERROR_INVALID_OPTION)
    {
        // Options passed the allow-list, so NVRTC refusing them means this NVRTC cannot target the
        // architecture (too old or too new for it).
        out.error = "NVRTC " + nvrtc_version() + " rejected the options for " + request.arch + ": " +
                    first_error_line(out.log, "invalid option");
    }
    else if (result == NVRTC_ERROR_COMPILATION)
    {
        out.error = first_error_line(out.log, "compilation failed");
    }
    else
    {
        ptxas_report report = parse_ptxas_report(out.log);
        out.entries = cubin_entry_points(out.cubin);
        if (out.entries.empty())
            out.entries = report.entries;
        // Symbol-table order is an accident of the compiler; extern "C" names first, then C++
        // names, each alphabetical, keeps messages to the model stable.
        std::sort(out.entries.begin(),
                  out.entries.end(),
                  [](const std::string& a, const std::string& b)
                  {
                      return std::pair(a.starts_with("_Z"), std::string_view(a)) <
                             std::pair(b.starts_with("_Z"), std::string_view(b));
                  });
        if (std::find(out.entries.begin(), out.entries.end(), request.entry) == out.entries.end())
        {
            out.error = entry_problem(out.entries, request.entry);
            out.cubin.clear();
        }
        else if (out.cubin.empty())
        {
            out.error = "NVRTC produced no cubin";
        }
        else if (parameter_refusal)
        {
            out.error = *parameter_refusal;
            out.cubin.clear();
        }
        else
        {
            out.compiled = true;
            if (auto it = report.resources.find(request.entry); it != report.resources.end())
                out.resources = it->second;
            out.resources.constant_bytes += report.module_constant_bytes;
        }
        out.entries = bounded_entries(std::move(out.entries));
    }

    if (cache_)
    {
        // A cache that cannot be written (full disk, read-only directory) must not fail the
        // compile: the output is correct, only the next compile will be slower.
        try
        {
            cache_->store(out);
        }
        catch (const std::exception& e)
        {
            log_warn(std::string("compile cache: cannot store ") + out.key + ": " + e.what());
        }
    }
    return out;
}

}  // namespace warpsmith
