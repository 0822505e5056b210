// Model code reads no host file, end to end (docs/hardening.md): from a directory whose .env holds an
// API key, with a key in the environment too,
//  * `warpsmith compile` of every probe of tests/cheats/includes refuses it with the one-line rule
//    (exit 1), compiles the allowed control, and prints the key nowhere; a probe the policy cannot
//    see (a pasted __has_include) finds no host file, since the compile runs on a closed thread;
//  * `warpsmith optimize --provider scripted` with include probes among its candidates (the fake
//    worker on "GPU 0", real NVRTC in process) finishes, records the refusals, and no file of the run
//    directory holds the key.

#include "harness/compile/compile_sandbox.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>

#include <cstdlib>

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

const std::string secret = "sk-test-SECRET123";

fs::path probes_dir()
{
    return source_dir() / "tests" / "cheats" / "includes";
}

/// A directory like a user's project: a .env with the key.
void write_dotenv(const fs::path& dir)
{
    write_file_atomic(dir / ".env", "OPENAI_API_KEY=" + secret + "\n");
}

struct key_in_environment
{
    key_in_environment() { ::setenv("OPENAI_API_KEY", secret.c_str(), 1); }
    ~key_in_environment() { ::unsetenv("OPENAI_API_KEY"); }
};

bool present(const fs::path& p)
{
    if (fs::exists(p))
        return true;
    BOOST_TEST_MESSAGE("skipped: " << p << " is not built");
    return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(include_probes_cli_suite)

BOOST_AUTO_TEST_CASE(warpsmith_compile_refuses_every_probe_and_prints_no_secret)
{
    if (!present(bin_dir() / "warpsmith"))
        return;
    temp_dir tmp("warpsmith-include-cli");
    write_dotenv(tmp.path());
    key_in_environment key;
    const json::value manifest = read_json_file(probes_dir() / "includes.json");
    for (const auto& p : manifest.at("probes").as_array())
    {
        const std::string file(p.at("file").as_string());
        const std::string expect(p.at("expect").as_string());
        BOOST_TEST_CONTEXT(file)
        {
            const auto r =
                run_warpsmith({"compile", (probes_dir() / file).string(), "--no-cache"}, tmp.path());
            BOOST_TEST(r.out.find(secret) == std::string::npos, r.out);
            BOOST_TEST(r.err.find(secret) == std::string::npos, r.err);
            if (expect == "compiles")
            {
                BOOST_TEST(r.rc == 0, r.out << r.err);
                continue;
            }
            BOOST_TEST(r.rc == 1, r.out << r.err);
            // Exactly one line: "<file>: did not compile: include policy: line N: <rule>; ...".
            BOOST_TEST(r.out.find('\n') == r.out.size() - 1, r.out);
            BOOST_TEST(r.out.find("did not compile: include policy: line ") != std::string::npos, r.out);
            BOOST_TEST(r.out.find(std::string(p.at("rule").as_string())) != std::string::npos, r.out);
        }
    }
}

BOOST_AUTO_TEST_CASE(warpsmith_compile_opens_no_host_file_for_a_probe_the_policy_cannot_see)
{
    // A __has_include spelled by token pasting passes the textual policy; `warpsmith compile` then
    // compiles on a thread closed by Landlock, so the probe of the .env beside it finds nothing (and
    // without the sandbox the kernel stops at its #error), while -o is still written.
    if (!present(bin_dir() / "warpsmith"))
        return;
    temp_dir tmp("warpsmith-include-cli-pasted");
    write_dotenv(tmp.path());
    const fs::path kernel = tmp.path() / "pasted.cu";
    write_file_atomic(kernel,
                      "#define PASTE(a, b) a##b\n#if PASTE(__has_, include)(\"" +
                          (tmp.path() / ".env").string() +
                          "\")\n#error the compile can read host files\n#endif\n"
                          "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n");
    const auto r = run_warpsmith(
        {"compile", kernel.string(), "--cache-dir", (tmp.path() / "cache").string(), "-o", "k.cubin"},
        tmp.path());
    BOOST_TEST(r.out.find(secret) == std::string::npos, r.out);
    if (landlock_abi_version() == 0)
    {
        BOOST_TEST_MESSAGE("Landlock unavailable here: warpsmith compile relies on the include policy");
        return;
    }
    BOOST_TEST(r.rc == 0, r.out << r.err);
    BOOST_TEST(fs::file_size(tmp.path() / "k.cubin") > 0u);
    BOOST_TEST(!fs::is_empty(tmp.path() / "cache"));  // written from inside the sandbox
}

BOOST_AUTO_TEST_CASE(warpsmith_compile_redacts_the_key_of_the_dotenv_beside_it)
{
    // Only ./.env holds the key (nothing in the environment): a log line that carries it (here the
    // kernel's own #error, where a sandbox-less reading of the file would put it) prints
    // [REDACTED].
    if (!present(bin_dir() / "warpsmith"))
        return;
    temp_dir tmp("warpsmith-include-cli-redact");
    write_dotenv(tmp.path());
    ::unsetenv("OPENAI_API_KEY");
    const fs::path kernel = tmp.path() / "echo.cu";
    write_file_atomic(
        kernel, "#error the key is " + secret + "\nextern \"C\" __global__ void k(float* x) { x[0] = 1; }\n");
    const auto r = run_warpsmith({"compile", kernel.string(), "--no-cache"}, tmp.path());
    BOOST_TEST(r.rc == 1, r.out << r.err);
    BOOST_TEST(r.out.find(secret) == std::string::npos, r.out);
    BOOST_TEST(r.err.find(secret) == std::string::npos, r.err);
    BOOST_TEST((r.out + r.err).find("[REDACTED]") != std::string::npos, r.out << r.err);
}

BOOST_AUTO_TEST_CASE(a_scripted_optimize_with_include_probes_leaves_no_secret_in_the_run_directory)
{
    if (!present(bin_dir() / "warpsmith") || !present(bin_dir() / "fake_worker"))
        return;
    temp_dir tmp("warpsmith-include-optimize");
    write_dotenv(tmp.path());
    key_in_environment key;
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);

    // Candidates for the vadd workload: a valid kernel, and the probes rewritten for its entry.
    const fs::path data = source_dir() / "tests" / "engine" / "run" / "data";
    const fs::path cands = tmp.path() / "candidates";
    fs::create_directories(cands);
    fs::copy_file(data / "candidates" / "k01.cu", cands / "k01.cu");
    const std::string body =
        "\nextern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
        "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n        c[i] = a[i] + b[i];\n}\n";
    write_file_atomic(cands / "k02.cu", "#include \".env\"\n" + body);
    write_file_atomic(cands / "k03.cu", "#include \"" + (tmp.path() / ".env").string() + "\"\n" + body);
    write_file_atomic(cands / "k04.cu", "#define F \".env\"\n#include F\n" + body);
    write_file_atomic(cands / "k05.cu", "#\\\ninclude \"/proc/self/environ\"\n" + body);

    const auto r = run_warpsmith({"optimize",
                                  "--worker",
                                  (bin_dir() / "fake_worker").string(),
                                  "--worker-arg=--evaluate-ms",
                                  "--worker-arg=5",
                                  "--in-process-compile",
                                  "--gpus",
                                  "0",
                                  "--workload",
                                  (data / "vadd").string(),
                                  "--candidates",
                                  cands.string(),
                                  "--branches",
                                  "1",
                                  "--max-iterations",
                                  "5",
                                  "--confirm-top",
                                  "1"},
                                 tmp.path());
    ::unsetenv("WARPSMITH_CACHE_DIR");
    BOOST_TEST_REQUIRE(r.rc == 0, r.out << r.err);
    BOOST_TEST(r.out.find(secret) == std::string::npos);
    BOOST_TEST(r.err.find(secret) == std::string::npos);

    const fs::path run = tmp.path() / "results" / "run-001";
    BOOST_TEST_REQUIRE(fs::is_directory(run));
    int files = 0, refusals = 0;
    for (const auto& e : fs::recursive_directory_iterator(run))
    {
        if (!e.is_regular_file())
            continue;
        ++files;
        const std::string text = slurp(e.path());
        BOOST_TEST(text.find(secret) == std::string::npos, e.path());
        if (e.path().filename() == "compile.log" && text.find("include policy") != std::string::npos)
            ++refusals;
    }
    BOOST_TEST(files > 5);
    BOOST_TEST(refusals == 4, "compile.log files carrying the include policy's refusal: " << refusals);
}

BOOST_AUTO_TEST_SUITE_END()
