// warpsmith-worker: the process that owns one GPU (--device K) or runs NVRTC for the engine's
// compile pool (--compile), speaking JSON lines on stdin/stdout (docs/worker-protocol.md).

#include "harness/compile/compile_limits.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/worker/device_buffers.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/request_loop.hpp"

#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>
#include <unistd.h>

namespace
{

using warpsmith::log_level;
using warpsmith::user_error;
using warpsmith::worker::worker_mode;
using warpsmith::worker::worker_options;

constexpr const char* k_help = R"(warpsmith-worker: runs kernels on one GPU, or NVRTC compiles, for warpsmith.

Usage:
  warpsmith-worker --device K [options]   GPU mode: owns the CUDA context of device K
  warpsmith-worker --compile [options]    compile mode: NVRTC only, no GPU needed

It reads one JSON request per line on stdin and writes one JSON response per line on stdout
(docs/worker-protocol.md); diagnostics go to stderr. It exits 0 on "shutdown" or end of input, and
3 after a kernel fault or hang (its CUDA context is then lost and the engine starts a new worker).

Options:
  --cache-dir DIR         compile cache directory (default: $WARPSMITH_CACHE_DIR, else
                          $XDG_CACHE_HOME/warpsmith/compile, else ~/.cache/warpsmith/compile)
  --no-cache              compile without the on-disk cache
  --memory-limit-mib N    compile mode: limit this process's data segment (RLIMIT_DATA) to N MiB,
                          so that a kernel whose compile needs more fails instead of taking the
                          host's memory (the compile pool passes its --compile-memory-mib)
  --log-level LEVEL       debug, info, warn or error (default info)
  --exact-buffers         GPU mode: give every buffer its own allocation of exactly its size, with
                          no guard zones, so compute-sanitizer memcheck sees out-of-bounds writes
                          (warpsmith eval --sanitize uses it; guards are then not checked)
  --help                  this text

Example:
  printf '{"id":1,"op":"hello"}\n{"id":2,"op":"shutdown"}\n' | warpsmith-worker --compile
)";

log_level parse_level(std::string_view s)
{
    if (s == "debug")
        return log_level::debug;
    if (s == "info")
        return log_level::info;
    if (s == "warn")
        return log_level::warn;
    if (s == "error")
        return log_level::error;
    throw user_error("--log-level: '" + std::string(s) + "' is not one of debug, info, warn, error");
}

// A whole number written in decimal digits alone (no sign, no blank, no suffix), or nullopt.
std::optional<std::uint64_t> whole_number(const std::string& text)
{
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [at, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || at != end)
        return std::nullopt;
    return value;
}

// Returns nullopt when --help was printed.
std::optional<worker_options> parse_args(int argc, char** argv)
{
    worker_options o;
    bool mode_set = false;
    const auto value = [&](int& i, std::string_view flag) -> std::string
    {
        if (i + 1 >= argc)
            throw user_error(std::string(flag) + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i)
    {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h")
        {
            std::fputs(k_help, stdout);
            return std::nullopt;
        }
        if (arg == "--device")
        {
            const std::string v = value(i, arg);
            const auto k = whole_number(v);
            if (!k || *k > std::numeric_limits<int>::max())
                throw user_error("--device: '" + v + "' is not a device index (0, 1, ...)");
            if (mode_set && o.mode != worker_mode::gpu)
                throw user_error("--device and --compile exclude each other");
            o.mode = worker_mode::gpu;
            o.device = static_cast<int>(*k);
            mode_set = true;
        }
        else if (arg == "--compile")
        {
            if (mode_set && o.mode != worker_mode::compile)
                throw user_error("--device and --compile exclude each other");
            o.mode = worker_mode::compile;
            mode_set = true;
        }
        else if (arg == "--cache-dir")
            o.cache_dir = value(i, arg);
        else if (arg == "--no-cache")
            o.no_cache = true;
        else if (arg == "--memory-limit-mib")
        {
            const std::string v = value(i, arg);
            const auto mib = whole_number(v);
            if (!mib || *mib == 0)
                throw user_error("--memory-limit-mib: '" + v + "' is not a positive number of MiB");
            o.memory_limit_mib = *mib;
        }
        else if (arg == "--log-level")
            o.level = parse_level(value(i, arg));
        else if (arg == "--exact-buffers")
            warpsmith::worker::set_exact_allocations(true);
        else
            throw user_error("unknown option '" + std::string(arg) + "' (see --help)");
    }
    if (!mode_set)
        throw user_error("say --device K or --compile (see --help)");
    if (o.memory_limit_mib && o.mode != worker_mode::compile)
        throw user_error("--memory-limit-mib is for compile mode (--compile)");
    return o;
}

void bind_logging(log_level level)
{
    auto logger = spdlog::stderr_logger_mt("warpsmith-worker");
    logger->set_pattern("[%H:%M:%S.%e] [worker] [%l] %v");
    logger->set_level(spdlog::level::trace);
    logger->flush_on(spdlog::level::trace);
    warpsmith::set_log_sink(
        [logger](log_level l, std::string_view message)
        {
            switch (l)
            {
                case log_level::debug:
                    logger->debug("{}", message);
                    break;
                case log_level::info:
                    logger->info("{}", message);
                    break;
                case log_level::warn:
                    logger->warn("{}", message);
                    break;
                case log_level::error:
                    logger->error("{}", message);
                    break;
            }
        },
        level);
}

}  // namespace

int main(int argc, char** argv)
{
    std::optional<worker_options> options;
    try
    {
        options = parse_args(argc, argv);
    }
    catch (const user_error& e)
    {
        std::fprintf(stderr, "warpsmith-worker: %s\n", e.what());
        return 2;
    }
    if (!options)
        return 0;
    if (options->memory_limit_mib)
    {
        if (auto problem = warpsmith::limit_process_memory(*options->memory_limit_mib))
        {
            std::fprintf(stderr, "warpsmith-worker: --memory-limit-mib: %s\n", problem->c_str());
            return 1;
        }
    }

    // stdout is the protocol. Anything else that writes to file descriptor 1 (device-side printf
    // of a candidate kernel, a library's diagnostics) would corrupt it, so the protocol gets a
    // private duplicate of the original stdout and descriptor 1 is pointed at stderr.
    const int protocol_fd = ::dup(STDOUT_FILENO);
    if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    {
        std::fprintf(stderr, "warpsmith-worker: cannot set up the protocol stream\n");
        return 1;
    }
    // A reader that goes away must not kill us with SIGPIPE mid-write; write() reports it instead.
    std::signal(SIGPIPE, SIG_IGN);

    try
    {
        bind_logging(options->level);
        warpsmith::worker::protocol_writer out(protocol_fd);
        warpsmith::worker::request_loop loop(*options);
        std::ios::sync_with_stdio(false);
        const int code = loop.run(std::cin, out);
        warpsmith::set_log_sink(nullptr);
        return code;
    }
    catch (const std::exception& e)
    {
        // The request loop turns every request's failure into a response; reaching this means the
        // worker itself could not run (e.g. the protocol stream could not be opened).
        std::fprintf(stderr, "warpsmith-worker: %s\n", e.what());
        return 1;
    }
}
