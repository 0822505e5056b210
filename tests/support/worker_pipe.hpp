#pragma once

// A blocking client for one warpsmith-worker process: spawn it with pipes on stdin and stdout,
// send request lines, read response lines with a timeout, and collect the exit code. Only tests use
// it: they need raw lines (malformed requests, partial output) and a client with no Asio in the way.
// The engine and the benchmarks talk to workers through engine/executors/worker_process.
// Not thread-safe.

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace warpsmith::test
{

class worker_pipe
{
public:
    /// Starts argv[0] (a path) with argv. stderr goes to stderr_path when given, else it is
    /// inherited. Throws warpsmith::system_error when the process cannot be started.
    explicit worker_pipe(const std::vector<std::string>& argv, const std::string& stderr_path = {});
    ~worker_pipe();  ///< Closes stdin, waits up to 5 s for the child, then kills it.
    worker_pipe(const worker_pipe&) = delete;
    worker_pipe& operator=(const worker_pipe&) = delete;

    /// Sends the request (an "id" is added when absent) and returns the response line with that id.
    /// Throws std::runtime_error when the worker closes stdout or does not answer in time.
    boost::json::object request(boost::json::object req, std::chrono::milliseconds timeout);

    /// Writes one raw line (a '\n' is appended).
    void send_line(std::string_view line);
    /// The next response line parsed as an object; nullopt at end of output. Throws on timeout or
    /// a line that is not a JSON object.
    std::optional<boost::json::object> read_response(std::chrono::milliseconds timeout);

    /// The next raw output line (without '\n'); nullopt at end of output. Throws on timeout.
    std::optional<std::string> read_line(std::chrono::milliseconds timeout);

    void close_stdin();
    /// Waits for the child to exit; its exit code (128+N after signal N), or -1 on timeout.
    int wait_exit(std::chrono::milliseconds timeout);
    void kill();
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int stdin_fd_ = -1;
    int stdout_fd_ = -1;
    std::string buffer_;
    std::int64_t next_id_ = 1;
    std::optional<int> exit_code_;
};

}  // namespace warpsmith::test
