// Compile workers run where the secrets are not (docs/hardening.md, "Model code reads no host file"):
// the compile pool starts them without credentials in an empty directory of their own (observed with
// a wrapper script around the fake worker), and the real `warpsmith-worker --compile` closes the file
// system with Landlock before its first compile, so a kernel that gets past the textual include
// policy (a __has_include built by token pasting) still sees no host file. No GPU needed.

#include "engine/executors/compile_pool.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/compile/compile_sandbox.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/secret_redaction.hpp"
#include "tests/engine/executors/executor_test_support.hpp"

#include <boost/asio/detached.hpp>

#include <cstdlib>
#include <sys/stat.h>

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

const std::string secret = "sk-test-SECRET123";

compile_request request(std::string source)
{
    compile_request r;
    r.name = "kernel.cu";
    r.entry = "k";
    r.source = std::move(source);
    return r;
}

compile_output compile_once(asio::io_context& ioc,
                            const worker_launch& launch,
                            const fs::path& cache,
                            compile_request r)
{
    compile_pool_options opts;
    opts.workers = 1;
    opts.cache_dir = cache.string();
    compile_pool pool(ioc, launch, opts);
    compile_output out;
    auto body = [&]() -> asio::awaitable<void>
    {
        out = co_await pool.compile(std::move(r));
        co_await pool.stop();
    };
    run_coro(ioc, body(), 120s);
    return out;
}

/// A kernel whose __has_include, spelled by token pasting, passes the textual include policy and
/// stops the compile at #error when the file it names can be opened.
std::string pasted_probe_of(const fs::path& file)
{
    return "#define PASTE(a, b) a##b\n#if PASTE(__has_, include)(\"" + file.string() +
           "\")\n#error the compile can read host files\n#endif\n"
           "#include <cuda_fp16.h>\n"
           "extern \"C\" __global__ void k(float* x) { x[0] = __half2float(__float2half(1.0f)); }\n";
}

/// A worker command that records what the worker would see (its environment in dir/env.txt, and
/// whatever `more` writes), then becomes the fake worker with the arguments it was given.
worker_launch recording_fake_worker(const fs::path& dir, const std::string& more = "")
{
    const fs::path script = dir / "worker.sh";
    write_file_atomic(script,
                      "#!/bin/sh\nenv > '" + (dir / "env.txt").string() + "'\n" + more + "exec '" +
                          fake_worker_path() + "' \"$@\"\n");
    ::chmod(script.c_str(), 0755);
    worker_launch l;
    l.worker_binary = script.string();
    return l;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(compile_sandbox_suite, io_fixture)

BOOST_AUTO_TEST_CASE(compile_workers_start_without_credentials_in_an_empty_directory)
{
    temp_dir tmp("warpsmith-sandbox-env");
    ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
    ::setenv("WARPSMITH_TEST_CREDENTIALS", "sk-registered-elsewhere-42", 1);
    register_secret("sk-registered-elsewhere-42");
    const worker_launch l =
        recording_fake_worker(tmp.path(),
                              "pwd > '" + (tmp.path() / "pwd.txt").string() + "'\nls -A > '" +
                                  (tmp.path() / "ls.txt").string() + "'\n");
    const auto out = compile_once(
        ioc, l, tmp.path() / "cache", request("extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n"));
    ::unsetenv("OPENAI_API_KEY");
    ::unsetenv("WARPSMITH_TEST_CREDENTIALS");
    BOOST_TEST(out.compiled, out.error);

    const std::string env = read_text_file(tmp.path() / "env.txt");
    BOOST_TEST(env.find(secret) == std::string::npos, env);
    BOOST_TEST(env.find("OPENAI_API_KEY") == std::string::npos);
    BOOST_TEST(env.find("sk-registered-elsewhere-42") == std::string::npos);
    BOOST_TEST(env.find("PATH=") != std::string::npos);
    const std::string pwd = read_text_file(tmp.path() / "pwd.txt");
    BOOST_TEST(env.find(std::string(compile_sandbox_variable) + "=" + pwd.substr(0, pwd.size() - 1)) !=
               std::string::npos);
    BOOST_TEST(pwd.find("warpsmith-compile-") != std::string::npos, pwd);
    BOOST_TEST(read_text_file(tmp.path() / "ls.txt").empty());
    // The pool removes the directory when it goes.
    BOOST_TEST(!fs::exists(pwd.substr(0, pwd.size() - 1)));
}

BOOST_AUTO_TEST_CASE(gpu_workers_start_without_credentials)
{
    // A GPU worker runs candidates' code and compiles their source (eval, --source candidates): it
    // gets this process's environment without the key, whatever the key's variable is called.
    temp_dir tmp("warpsmith-gpu-env");
    ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
    ::setenv("WARPSMITH_TEST_CREDENTIALS", "sk-registered-elsewhere-43", 1);
    register_secret("sk-registered-elsewhere-43");
    {
        gpu_executor gpu(ioc, recording_fake_worker(tmp.path()), 0, {});
        auto body = [&]() -> asio::awaitable<void>
        {
            co_await gpu.start();
            co_await gpu.stop();
        };
        run_coro(ioc, body());
    }
    ::unsetenv("OPENAI_API_KEY");
    ::unsetenv("WARPSMITH_TEST_CREDENTIALS");

    const std::string env = read_text_file(tmp.path() / "env.txt");
    BOOST_TEST(env.find(secret) == std::string::npos, env);
    BOOST_TEST(env.find("OPENAI_API_KEY") == std::string::npos);
    BOOST_TEST(env.find("sk-registered-elsewhere-43") == std::string::npos);
    BOOST_TEST(env.find("PATH=") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_real_compile_worker_reads_no_host_file)
{
    const fs::path worker = bin_dir() / "warpsmith-worker";
    if (!fs::exists(worker))
    {
        BOOST_TEST_MESSAGE("skipped: " << worker << " is not built");
        return;
    }
    temp_dir tmp("warpsmith-sandbox-read");
    const fs::path secret_file = tmp.path() / ".env";
    write_file_atomic(secret_file, "OPENAI_API_KEY=" + secret + "\n");
    worker_launch l;
    l.worker_binary = worker.string();

    // The textual policy refuses the plain forms in the worker too.
    const auto quoted = compile_once(ioc,
                                     l,
                                     tmp.path() / "cache",
                                     request("#include \"" + secret_file.string() +
                                             "\"\nextern \"C\" __global__ void k(float* x) { x[0] = 1; }\n"));
    BOOST_TEST(!quoted.compiled);
    BOOST_TEST(quoted.error.find("include policy") != std::string::npos, quoted.error);
    BOOST_TEST(quoted.log.find(secret) == std::string::npos);

    // A __has_include spelled by token pasting passes the textual check; under Landlock NVRTC cannot
    // open the file, so the probe finds nothing and the kernel compiles. Without a sandbox it would
    // stop at the #error.
    const std::string probe =
        "#define PASTE(a, b) a##b\n#if PASTE(__has_, include)(\"" + secret_file.string() +
        "\")\n#error the compile worker can read host files\n#endif\n"
        "#include <cuda_fp16.h>\n"
        "extern \"C\" __global__ void k(float* x) { x[0] = __half2float(__float2half(1.0f)); }\n";
    const auto out = compile_once(ioc, l, tmp.path() / "cache", request(probe));
    if (landlock_abi_version() == 0)
    {
        BOOST_TEST_MESSAGE("Landlock unavailable here: the worker compiles without the file-system sandbox");
        BOOST_TEST(!out.compiled);
        return;
    }
    BOOST_TEST(out.compiled, out.error << "\n" << out.log);
    // The cache was written from inside the sandbox.
    BOOST_TEST(!fs::is_empty(tmp.path() / "cache"));
}

BOOST_AUTO_TEST_CASE(in_process_compiles_read_no_host_file_and_leave_the_process_its_files)
{
    // --in-process-compile runs NVRTC in the CLI, which holds the API key: its compile threads
    // close their own view of the file system, the rest of the process keeps it.
    temp_dir tmp("warpsmith-sandbox-in-process");
    const fs::path secret_file = tmp.path() / ".env";
    write_file_atomic(secret_file, "OPENAI_API_KEY=" + secret + "\n");
    compile_pool_options opts;
    opts.workers = 2;
    opts.in_process = true;
    opts.cache_dir = (tmp.path() / "cache").string();
    std::vector<compile_output> outs;
    {
        compile_pool pool(ioc, worker_launch{}, opts);
        auto one = [&](int i) -> asio::awaitable<void>
        {
            compile_request r = request(pasted_probe_of(secret_file) + "// " + std::to_string(i) + "\n");
            outs.push_back(co_await pool.compile(std::move(r)));
        };
        auto body = [&]() -> asio::awaitable<void>
        {
            // Four at once on two threads: both threads compile, each closed before its first.
            for (int i = 0; i < 4; ++i)
                asio::co_spawn(ioc, one(i), asio::detached);
            while (outs.size() < 4)
                co_await pause(5ms);
            co_await pool.stop();
        };
        run_coro(ioc, body(), 120s);
    }
    BOOST_TEST(read_text_file(secret_file).find(secret) != std::string::npos);  // this thread still reads it
    if (landlock_abi_version() == 0)
    {
        BOOST_TEST_MESSAGE("Landlock unavailable here: in-process compiles rely on the include policy");
        return;
    }
    for (const auto& out : outs)
    {
        BOOST_TEST(out.compiled, out.error << "\n" << out.log);
        BOOST_TEST(out.log.find(secret) == std::string::npos);
    }
    BOOST_TEST(!fs::is_empty(tmp.path() / "cache"));  // written from inside the sandbox
}

BOOST_AUTO_TEST_SUITE_END()
