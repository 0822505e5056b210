// fake_ncu: a stand-in for Nsight Compute's ncu in tests, speaking the part of its command line
// that warpsmith uses (engine/profile/ncu_tool.hpp):
//
//   fake_ncu --version
//   fake_ncu [--profile-from-start off] [--clock-control none] [--section S]... --log-file L
//            --export BASE [--force-overwrite] APP [ARGS...]
//       runs APP with stdin/stdout passed through (the worker protocol), then writes BASE.ncu-rep
//   fake_ncu --import R --csv --page raw|details
//       prints FAKE_NCU_DATA/<fixture>-<page>.csv, the fixture named inside R
//
// Environment:
//   FAKE_NCU_DATA     directory of the CSV captures (tests/engine/profile/data)
//   FAKE_NCU_FIXTURE  capture stem written into the report (default "sgemm")
//   FAKE_NCU_LOG      append "<steady_ns> <pid> profile_begin|profile_end -" lines (the fake_worker's
//                     log format, so tests can check that a profile overlaps no timing)
//   FAKE_NCU_MODE     "perm": write ERR_NVGPUCTRPERM to the log and exit 1 without running APP;
//                     "hang": sleep for an hour; "garbage": --import prints text that is not CSV;
//                     "noversion": --version prints no version
//   FAKE_NCU_SLEEP_MS sleep this long before running APP (a slow profile)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace
{

std::string env(const char* name, const std::string& fallback = {})
{
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

void log_event(const std::string& event)
{
    const std::string path = env("FAKE_NCU_LOG");
    if (path.empty())
        return;
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    const long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
    const std::string line = std::to_string(ns) + " " + std::to_string(::getpid()) + " " + event + " -\n";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    [[maybe_unused]] auto n = ::write(fd, line.data(), line.size());
    ::close(fd);
}

int import_page(const std::string& report, const std::string& page)
{
    std::ifstream in(report);
    std::string magic, fixture;
    std::getline(in, magic);
    std::getline(in, fixture);
    if (magic != "FAKE-NCU-REP")
    {
        std::cerr << "==ERROR== " << report << " is not a report\n";
        return 1;
    }
    if (env("FAKE_NCU_MODE") == "garbage")
    {
        std::cout << "this is not the CSV you are looking for\n";
        return 0;
    }
    std::ifstream csv(env("FAKE_NCU_DATA") + "/" + fixture + "-" + page + ".csv");
    if (!csv)
    {
        std::cerr << "==ERROR== no capture for " << fixture << " " << page << "\n";
        return 1;
    }
    std::cout << csv.rdbuf();
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const std::string mode = env("FAKE_NCU_MODE");
    if (!args.empty() && args[0] == "--version")
    {
        std::cout << "NVIDIA (R) Nsight Compute Command Line Profiler (fake)\n";
        if (mode != "noversion")
            std::cout << "Version 2025.3.1.0 (build 0) (fake)\n";
        return 0;
    }
    std::string log_file, export_base, import, page;
    std::size_t i = 0;
    for (; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
        if (a == "--log-file")
            log_file = value();
        else if (a == "--export" || a == "-o")
            export_base = value();
        else if (a == "--import")
            import = value();
        else if (a == "--page")
            page = value();
        else if (a == "--section" || a == "--profile-from-start" || a == "--clock-control")
            value();
        else if (a == "--csv" || a == "--force-overwrite" || a == "-f")
            continue;
        else
            break;
    }
    if (!import.empty())
        return import_page(import, page.empty() ? "details" : page);
    if (i >= args.size())
    {
        std::cerr << "fake_ncu: no application to profile\n";
        return 1;
    }
    std::ofstream log(log_file);
    if (mode == "perm")
    {
        log << "==PROF== Connected to process 1\n"
            << "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
               "Performance "
               "Counters on the target device 0.\n";
        return 1;
    }
    if (mode == "hang")
        ::sleep(3600);
    log_event("profile_begin");
    if (int ms = std::atoi(env("FAKE_NCU_SLEEP_MS", "0").c_str()); ms > 0)
        ::usleep(static_cast<useconds_t>(ms) * 1000);
    std::vector<char*> app;
    for (std::size_t k = i; k < args.size(); ++k)
        app.push_back(args[k].data());
    app.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0)
    {
        ::execv(app[0], app.data());
        std::perror("fake_ncu: execv");
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    log << "==PROF== Disconnected from process " << pid << "\n";
    {
        std::ofstream rep(export_base + ".ncu-rep");
        rep << "FAKE-NCU-REP\n" << env("FAKE_NCU_FIXTURE", "sgemm") << "\n";
    }
    log_event("profile_end");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
