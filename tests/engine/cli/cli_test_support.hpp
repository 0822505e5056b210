#pragma once

// Running the warpsmith program in tests: argv in, exit code, stdout and stderr out.

#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace warpsmith::test
{

struct cli_result
{
    int rc = -1;
    std::string out;
    std::string err;
};

inline std::string sh_quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string slurp(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Runs `warpsmith args...` in cwd with stdin from /dev/null.
inline cli_result run_warpsmith(const std::vector<std::string>& args, const std::filesystem::path& cwd)
{
    temp_dir io("warpsmith-cli-io");
    std::string cmd = "cd " + sh_quote(cwd.string()) + " && " + sh_quote((bin_dir() / "warpsmith").string());
    // Two appends, not `cmd += " " + sh_quote(a)`: g++ 12 warns (-Wrestrict) on the temporary.
    for (const auto& a : args)
    {
        cmd += ' ';
        cmd += sh_quote(a);
    }
    cmd += " </dev/null >" + sh_quote((io.path() / "out").string()) + " 2>" +
           sh_quote((io.path() / "err").string());
    int status = std::system(cmd.c_str());
    cli_result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(io.path() / "out");
    r.err = slurp(io.path() / "err");
    return r;
}

/// stderr holds exactly one line, "warpsmith: ..." (the error contract of docs/cli.md).
inline bool one_error_line(const std::string& err)
{
    return err.rfind("warpsmith: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

inline std::filesystem::path vadd_dir()
{
    return source_dir() / "tests/engine/executors/data/vadd";
}

}  // namespace warpsmith::test
