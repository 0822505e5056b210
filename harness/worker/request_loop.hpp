#pragma once

// The worker's request loop (docs/worker-protocol.md): one JSON request per line in, exactly one
// response per request out, strictly in order. handle_line() is the sans-I/O core (a line in, a
// response and what to do next out), so tests can drive it without processes; run() only reads
// lines and writes responses.
//
// Failure policy: nothing a request contains can crash the worker. A malformed line is a
// bad_request; any exception becomes an ok:false response (kind internal unless it is a known
// kind). A lost CUDA context (sticky error, hung kernel) makes the response carry
// "worker_restart": true, and run() exits the process with code 3 right after writing it.

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/log.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith::worker
{

class gpu_session;
class protocol_writer;

enum class worker_mode
{
    gpu,      ///< --device K
    compile,  ///< --compile
};

struct worker_options
{
    worker_mode mode = worker_mode::compile;
    int device = 0;
    std::optional<std::filesystem::path> cache_dir;  ///< --cache-dir (default: compile_cache::default_dir()).
    bool no_cache = false;                           ///< --no-cache
    log_level level = log_level::info;
    std::optional<std::uint64_t> memory_limit_mib;  ///< --memory-limit-mib (compile mode).
};

/// The exit code after a lost CUDA context (fault or hang).
inline constexpr int restart_exit_code = 3;

class request_loop
{
public:
    explicit request_loop(worker_options options);
    ~request_loop();

    struct outcome
    {
        boost::json::object response;
        bool respond = true;  ///< False for blank lines (no request, no response).
        bool exit = false;    ///< shutdown, or the context is lost.
        int exit_code = 0;
    };

    /// Handles one request line.
    outcome handle_line(std::string_view line);

    /// Reads lines until shutdown or EOF; returns the exit code. After a response with
    /// worker_restart it does not return: it flushes and calls _Exit(3), because nothing else may
    /// touch a context whose kernel may still be running (exit handlers of the driver included).
    int run(std::istream& in, protocol_writer& out);

private:
    boost::json::object dispatch(const std::string& op, const boost::json::object& request, outcome& result);
    boost::json::object hello();
    gpu_session& session();

    worker_options options_;
    nvrtc_compiler compiler_;
    std::unique_ptr<gpu_session> session_;
};

}  // namespace warpsmith::worker
