#include "engine/executors/worker_launch.hpp"

#include "engine/executors/command_line.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <unistd.h>

namespace warpsmith
{

namespace
{

constexpr std::string_view device_placeholder = "{device}";

std::string replace_all(std::string text, std::string_view from, const std::string& to)
{
    for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
        text.replace(pos, from.size(), to);
    return text;
}

std::vector<std::string> shell_argv(std::string command, const std::vector<std::string>& extra)
{
    for (const auto& a : extra)
        command += " " + shell_quote(a);
    return {"/bin/sh", "-c", command};
}

}  // namespace

std::vector<std::string> worker_launch::gpu_argv(int device) const
{
    const std::string k = std::to_string(device);
    if (command)
    {
        std::string cmd = *command;
        if (cmd.find(device_placeholder) != std::string::npos)
            cmd = replace_all(cmd, device_placeholder, k);
        else
            cmd += " --device " + k;
        return shell_argv(cmd, extra_args);
    }
    std::vector<std::string> argv{
        worker_binary.empty() ? default_worker_binary() : worker_binary, "--device", k};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    return argv;
}

std::vector<std::string> worker_launch::compile_argv() const
{
    // A template that names a device ("ssh gpu{device} ...") describes how to reach one GPU; compile
    // workers are CPU work and run from the local binary instead of being sent to a GPU host.
    if (command && command->find(device_placeholder) == std::string::npos)
        return shell_argv(*command + " --compile", extra_args);
    std::vector<std::string> argv{worker_binary.empty() ? default_worker_binary() : worker_binary,
                                  "--compile"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    return argv;
}

std::string worker_launch::default_worker_binary()
{
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
    {
        auto sibling = self.parent_path() / "warpsmith-worker";
        if (::access(sibling.c_str(), X_OK) == 0)
            return sibling.string();
    }
    if (const char* path = std::getenv("PATH"))
        if (auto p = find_on_path(path, "warpsmith-worker"))
            return p->string();
    // Not found: the name alone, so that starting it fails with a message naming it.
    return "warpsmith-worker";
}

}  // namespace warpsmith
