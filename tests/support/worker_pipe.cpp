#include "tests/support/worker_pipe.hpp"

#include "harness/core/error.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace warpsmith::test
{

namespace json = boost::json;

namespace
{

[[noreturn]] void throw_errno(const std::string& what)
{
    throw warpsmith::system_error(boost::system::error_code(errno, boost::system::generic_category()), what);
}

}  // namespace

worker_pipe::worker_pipe(const std::vector<std::string>& argv, const std::string& stderr_path)
{
    if (argv.empty())
        throw std::invalid_argument("worker_pipe: empty argv");
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0)
        throw_errno("pipe2");
    if (::pipe2(out, O_CLOEXEC) != 0)
    {
        ::close(in[0]);
        ::close(in[1]);
        throw_errno("pipe2");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    if (!stderr_path.empty())
        posix_spawn_file_actions_addopen(
            &actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_fd_ = in[1];
    stdout_fd_ = out[0];
    if (rc != 0)
    {
        ::close(stdin_fd_);
        ::close(stdout_fd_);
        stdin_fd_ = stdout_fd_ = -1;
        pid_ = -1;
        throw warpsmith::system_error(boost::system::error_code(rc, boost::system::generic_category()),
                                      "cannot start " + argv[0]);
    }
}

worker_pipe::~worker_pipe()
{
    close_stdin();
    if (pid_ > 0 && !exit_code_ && wait_exit(std::chrono::seconds(5)) < 0)
    {
        kill();
        wait_exit(std::chrono::seconds(5));
    }
    if (stdout_fd_ >= 0)
        ::close(stdout_fd_);
}

void worker_pipe::send_line(std::string_view line)
{
    std::string data(line);
    data += '\n';
    std::size_t done = 0;
    while (done < data.size())
    {
        const ssize_t n = ::write(stdin_fd_, data.data() + done, data.size() - done);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            throw_errno("write to the worker");
        }
        done += static_cast<std::size_t>(n);
    }
}

std::optional<std::string> worker_pipe::read_line(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;)
    {
        if (auto nl = buffer_.find('\n'); nl != std::string::npos)
        {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            throw std::runtime_error("the worker did not answer within " + std::to_string(timeout.count()) +
                                     " ms");
        pollfd p{stdout_fd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno != EINTR)
            throw_errno("poll");
        if (rc <= 0)
            continue;
        char chunk[65536];
        const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
        if (n < 0 && errno != EINTR)
            throw_errno("read from the worker");
        if (n == 0)
            return std::nullopt;
        if (n > 0)
            buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

std::optional<json::object> worker_pipe::read_response(std::chrono::milliseconds timeout)
{
    std::optional<std::string> line = read_line(timeout);
    if (!line)
        return std::nullopt;
    boost::system::error_code ec;
    json::value v = json::parse(*line, ec);
    if (ec || !v.is_object())
        throw std::runtime_error("the worker wrote a line that is not a JSON object: " +
                                 line->substr(0, 200));
    return std::move(v.get_object());
}

json::object worker_pipe::request(json::object req, std::chrono::milliseconds timeout)
{
    if (!req.contains("id"))
        req["id"] = next_id_++;
    const json::value id = req["id"];
    send_line(json::serialize(req));
    std::optional<json::object> resp = read_response(timeout);
    if (!resp)
        throw std::runtime_error("the worker closed its output instead of answering " +
                                 json::serialize(req["op"]));
    if (resp->if_contains("id") == nullptr || (*resp)["id"] != id)
        throw std::runtime_error("the worker answered with another id: " +
                                 json::serialize(*resp).substr(0, 200));
    return std::move(*resp);
}

void worker_pipe::close_stdin()
{
    if (stdin_fd_ >= 0)
    {
        ::close(stdin_fd_);
        stdin_fd_ = -1;
    }
}

int worker_pipe::wait_exit(std::chrono::milliseconds timeout)
{
    if (exit_code_)
        return *exit_code_;
    if (pid_ <= 0)
        return -1;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;)
    {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_)
        {
            exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            return *exit_code_;
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (std::chrono::steady_clock::now() >= deadline)
            return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void worker_pipe::kill()
{
    if (pid_ > 0 && !exit_code_)
        ::kill(pid_, SIGKILL);
}

}  // namespace warpsmith::test
