#include "harness/compile/compile_cache.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/harness/compile/test_kernels.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace warpsmith;

namespace
{

compile_request saxpy_request(std::vector<std::string> options = {})
{
    compile_request r;
    r.source = test_kernels::saxpy;
    r.entry = "saxpy";
    r.options = std::move(options);
    return r;
}

int count_files(const std::filesystem::path& dir)
{
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        n += e.is_regular_file() ? 1 : 0;
    return n;
}

void overwrite(const std::filesystem::path& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Restores an environment variable when the test ends.
class scoped_env
{
public:
    scoped_env(const char* name, const char* value) : name_(name)
    {
        if (const char* old = std::getenv(name))
            old_ = old;
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~scoped_env()
    {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(compile_cache_behaviour)

BOOST_AUTO_TEST_CASE(hit_after_miss)
{
    test::temp_dir dir;
    nvrtc_compiler compiler{compile_cache(dir.path())};
    compile_output first = compiler.compile(saxpy_request());
    BOOST_TEST_REQUIRE(first.compiled, first.error);
    BOOST_TEST(!first.cache_hit);
    BOOST_TEST(first.compile_ms > 0);
    const std::string& key = first.key;
    BOOST_TEST(std::filesystem::exists(dir.path() / key.substr(0, 2) / (key + ".json")));
    BOOST_TEST(std::filesystem::exists(dir.path() / key.substr(0, 2) / (key + ".cubin")));

    compile_output second = compiler.compile(saxpy_request());
    BOOST_TEST(second.cache_hit);
    BOOST_TEST(second.compile_ms == 0.0);
    BOOST_TEST(second.compiled);
    BOOST_TEST(second.cubin == first.cubin);
    BOOST_TEST(second.log == first.log);
    BOOST_TEST(second.key == first.key);
    BOOST_TEST(second.arch == first.arch);
    BOOST_TEST(second.entries == first.entries, boost::test_tools::per_element());
    BOOST_TEST(second.resources.registers == first.resources.registers);

    // A different option is a different entry.
    compile_output fast = compiler.compile(saxpy_request({"--use_fast_math"}));
    BOOST_TEST(!fast.cache_hit);
    BOOST_TEST(fast.key != first.key);
}

BOOST_AUTO_TEST_CASE(failed_compiles_are_cached_refusals_are_not)
{
    test::temp_dir dir;
    nvrtc_compiler compiler{compile_cache(dir.path())};
    compile_request broken = saxpy_request();
    broken.source = "extern \"C\" __global__ void saxpy() { undeclared = 1; }\n";
    compile_output first = compiler.compile(broken);
    BOOST_TEST(!first.compiled);
    BOOST_TEST(!first.cache_hit);
    BOOST_TEST(count_files(dir.path()) == 1);  // Metadata only: there is no cubin.
    compile_output second = compiler.compile(broken);
    BOOST_TEST(second.cache_hit);
    BOOST_TEST(!second.compiled);
    BOOST_TEST(second.error == first.error);
    BOOST_TEST(second.log == first.log);

    compile_output refused = compiler.compile(saxpy_request({"-rdc=true"}));
    BOOST_TEST(!refused.compiled);
    BOOST_TEST(count_files(dir.path()) == 1);
}

BOOST_AUTO_TEST_CASE(corrupted_entries_are_misses)
{
    test::temp_dir dir;
    compile_cache cache(dir.path());
    nvrtc_compiler compiler{cache};
    compile_output good = compiler.compile(saxpy_request());
    BOOST_TEST_REQUIRE(good.compiled);
    const std::string key = good.key;
    const std::string meta = read_text_file(cache.metadata_path(key));
    BOOST_TEST_REQUIRE(cache.lookup(key).has_value());

    // Truncated metadata (a torn write from a tool that is not atomic).
    overwrite(cache.metadata_path(key), meta.substr(0, meta.size() / 2));
    BOOST_TEST(!cache.lookup(key).has_value());
    // Recompiling repairs the entry.
    BOOST_TEST(!compiler.compile(saxpy_request()).cache_hit);
    BOOST_TEST(compiler.compile(saxpy_request()).cache_hit);

    // A cubin that does not match its metadata: one flipped byte, a truncation, or none at all.
    std::string cubin = good.cubin;
    cubin[cubin.size() / 2] ^= 0x5a;
    overwrite(cache.cubin_path(key), cubin);
    BOOST_TEST(!cache.lookup(key).has_value());
    overwrite(cache.cubin_path(key), good.cubin.substr(0, good.cubin.size() - 1));
    BOOST_TEST(!cache.lookup(key).has_value());
    std::filesystem::remove(cache.cubin_path(key));
    BOOST_TEST(!cache.lookup(key).has_value());
    overwrite(cache.cubin_path(key), good.cubin);
    BOOST_TEST(cache.lookup(key).has_value());

    // An entry copied under another key, an entry of another format, an empty file.
    const std::string other(64, 'e');
    std::filesystem::create_directories(cache.metadata_path(other).parent_path());
    std::filesystem::copy_file(cache.metadata_path(key), cache.metadata_path(other));
    std::filesystem::copy_file(cache.cubin_path(key), cache.cubin_path(other));
    BOOST_TEST(!cache.lookup(other).has_value());
    std::string old_format = meta;
    auto at = old_format.find("\"format\": 1");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    old_format.replace(at, 11, "\"format\": 0");
    overwrite(cache.metadata_path(key), old_format);
    BOOST_TEST(!cache.lookup(key).has_value());
    overwrite(cache.metadata_path(key), "");
    BOOST_TEST(!cache.lookup(key).has_value());
    overwrite(cache.metadata_path(key), "[1, 2]");
    BOOST_TEST(!cache.lookup(key).has_value());

    // Keys that are not SHA-256 digests never touch the file system.
    BOOST_TEST(!cache.lookup("../../etc/passwd").has_value());
    BOOST_TEST(!cache.lookup("").has_value());
}

BOOST_AUTO_TEST_CASE(store_requires_a_key)
{
    test::temp_dir dir;
    compile_output out;
    out.key = "not-a-key";
    BOOST_CHECK_THROW(compile_cache(dir.path()).store(out), user_error);
}

BOOST_AUTO_TEST_CASE(concurrent_stores_of_one_key)
{
    test::temp_dir dir;
    compile_cache cache(dir.path());
    compile_output good = nvrtc_compiler().compile(saxpy_request());
    BOOST_TEST_REQUIRE(good.compiled);

    // Threads of one process.
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
    {
        threads.emplace_back(
            [&]
            {
                for (int i = 0; i < 20; ++i)
                {
                    cache.store(good);
                    auto hit = cache.lookup(good.key);
                    // A reader racing writers sees the old entry or the new one, never a torn one.
                    if (i > 0 && (!hit || hit->cubin != good.cubin))
                        throw std::runtime_error("lookup during concurrent stores failed");
                }
            });
    }
    for (auto& t : threads)
        t.join();

    // Separate processes sharing the directory, as compile workers do.
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p)
    {
        pid_t pid = ::fork();
        BOOST_TEST_REQUIRE(pid >= 0);
        if (pid == 0)
        {
            int status = 0;
            try
            {
                for (int i = 0; i < 25; ++i)
                {
                    cache.store(good);
                    auto hit = cache.lookup(good.key);
                    if (!hit || hit->cubin != good.cubin)
                        status = 1;
                }
            }
            catch (...)
            {
                status = 2;
            }
            ::_exit(status);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children)
    {
        int status = -1;
        ::waitpid(pid, &status, 0);
        BOOST_TEST(WIFEXITED(status));
        BOOST_TEST(WEXITSTATUS(status) == 0);
    }

    auto hit = cache.lookup(good.key);
    BOOST_TEST_REQUIRE(hit.has_value());
    BOOST_TEST(hit->cubin == good.cubin);
    BOOST_TEST(hit->cache_hit);
    // Only the two files of the entry remain: no temporary files left behind.
    BOOST_TEST(count_files(dir.path()) == 2);
}

BOOST_AUTO_TEST_CASE(unwritable_cache_does_not_fail_the_compile)
{
    test::temp_dir dir;
    // A regular file where the cache directory should be.
    overwrite(dir.path() / "blocked", "x");
    nvrtc_compiler compiler{compile_cache(dir.path() / "blocked")};
    compile_output out = compiler.compile(saxpy_request());
    BOOST_TEST(out.compiled, out.error);
    BOOST_TEST(!out.cache_hit);
    BOOST_CHECK_THROW(compile_cache(dir.path() / "blocked").store(out), user_error);
}

BOOST_AUTO_TEST_CASE(default_directory_follows_the_environment)
{
    {
        scoped_env cache_dir("WARPSMITH_CACHE_DIR", "/tmp/ws-cache");
        BOOST_TEST(compile_cache::default_dir() == std::filesystem::path("/tmp/ws-cache"));
    }
    scoped_env no_cache_dir("WARPSMITH_CACHE_DIR", nullptr);
    {
        scoped_env xdg("XDG_CACHE_HOME", "/tmp/xdg");
        BOOST_TEST(compile_cache::default_dir() == std::filesystem::path("/tmp/xdg/warpsmith/compile"));
    }
    scoped_env no_xdg("XDG_CACHE_HOME", nullptr);
    scoped_env home("HOME", "/home/someone");
    BOOST_TEST(compile_cache::default_dir() ==
               std::filesystem::path("/home/someone/.cache/warpsmith/compile"));
}

BOOST_AUTO_TEST_SUITE_END()
