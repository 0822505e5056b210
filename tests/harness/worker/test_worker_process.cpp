// The real warpsmith-worker binary, spawned with pipes: the protocol as the engine sees it, in
// compile mode (runs anywhere) and in GPU mode on a device that does not exist (so it holds on
// machines with and without a GPU).

#include "tests/harness/worker/worker_test_support.hpp"
#include "tests/support/worker_pipe.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

namespace json = boost::json;
using warpsmith::test::temp_dir;
using warpsmith::test::worker_path;
using warpsmith::test::worker_pipe;
using namespace std::chrono_literals;

namespace
{

std::string read_file(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_process)

BOOST_AUTO_TEST_CASE(compile_mode_session)
{
    temp_dir cache("warpsmith-worker-cache");
    worker_pipe w({worker_path(), "--compile", "--cache-dir", cache.path().string()});

    json::object hello = w.request({{"op", "hello"}}, 30s);
    BOOST_TEST(hello.at("ok").as_bool());
    BOOST_TEST(hello.at("mode").as_string() == "compile");
    BOOST_TEST(hello.at("protocol").as_int64() == 1);
    BOOST_TEST(!hello.at("worker_version").as_string().empty());

    const json::object compile{{"op", "compile"},
                               {"request",
                                {{"source",
                                  "extern \"C\" __global__ void twice(float* x, int n) { int i = "
                                  "threadIdx.x; if (i < n) x[i] *= 2; }"},
                                 {"entry", "twice"},
                                 {"arch", "sm_90"}}}};
    json::object first = w.request(compile, 60s);
    BOOST_TEST_REQUIRE(first.at("ok").as_bool());
    const json::object& out = first.at("output").as_object();
    BOOST_TEST(out.at("compiled").as_bool());
    BOOST_TEST(!out.at("cubin_b64").as_string().empty());
    BOOST_TEST(out.at("arch").as_string() == "sm_90");
    // The same request again comes from the on-disk cache.
    json::object second = w.request(compile, 60s);
    BOOST_TEST(second.at("output").at("cache_hit").as_bool());
    BOOST_TEST(second.at("output").at("cubin_b64") == out.at("cubin_b64"));

    json::object broken = w.request(
        {{"op", "compile"},
         {"request", {{"source", "extern \"C\" __global__ void k() { undeclared(); }"}, {"entry", "k"}}}},
        60s);
    BOOST_TEST(broken.at("ok").as_bool());
    BOOST_TEST(!broken.at("output").at("compiled").as_bool());
    BOOST_TEST(std::string(broken.at("output").at("log").as_string()).find("undeclared") !=
               std::string::npos);

    // A malformed line is answered (id null) and the worker carries on.
    w.send_line("this is not json");
    auto bad = w.read_response(10s);
    BOOST_TEST_REQUIRE(bad.has_value());
    BOOST_TEST(bad->at("id").is_null());
    BOOST_TEST(bad->at("error").at("kind").as_string() == "bad_request");

    json::object unknown = w.request({{"op", "teleport"}}, 10s);
    BOOST_TEST(unknown.at("error").at("kind").as_string() == "bad_request");
    json::object gpu_op = w.request({{"op", "evaluate"}}, 10s);
    BOOST_TEST(gpu_op.at("error").at("kind").as_string() == "bad_request");

    // Responses come back in request order even when requests are pipelined.
    w.send_line(R"({"id":100,"op":"hello"})");
    w.send_line(R"({"id":101,"op":"nope"})");
    w.send_line(R"({"id":102,"op":"hello"})");
    for (int id : {100, 101, 102})
    {
        auto r = w.read_response(10s);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->at("id").as_int64() == id);
    }

    json::object bye = w.request({{"op", "shutdown"}}, 10s);
    BOOST_TEST(bye.at("ok").as_bool());
    BOOST_TEST(w.wait_exit(10s) == 0);
}

BOOST_AUTO_TEST_CASE(end_of_input_exits_zero)
{
    worker_pipe w({worker_path(), "--compile", "--no-cache"});
    BOOST_TEST(w.request({{"op", "hello"}}, 30s).at("ok").as_bool());
    w.close_stdin();
    BOOST_TEST(w.wait_exit(10s) == 0);
}

BOOST_AUTO_TEST_CASE(gpu_mode_without_the_device_answers_no_device)
{
    temp_dir tmp("warpsmith-worker-stderr");
    const auto err = tmp.path() / "stderr.txt";
    worker_pipe w({worker_path(), "--device", "999", "--no-cache"}, err.string());
    json::object hello = w.request({{"op", "hello"}}, 60s);
    BOOST_TEST(!hello.at("ok").as_bool());
    BOOST_TEST(hello.at("error").at("kind").as_string() == "no_device");
    const std::string message(hello.at("error").at("message").as_string());
    BOOST_TEST(message.find('\n') == std::string::npos);
    BOOST_TEST(!message.empty());
    // Compiles still work, and the worker shuts down cleanly.
    json::object c = w.request(
        {{"op", "compile"}, {"request", {{"source", "extern \"C\" __global__ void k() {}"}, {"entry", "k"}}}},
        60s);
    BOOST_TEST(c.at("output").at("compiled").as_bool());
    BOOST_TEST(w.request({{"op", "shutdown"}}, 10s).at("ok").as_bool());
    BOOST_TEST(w.wait_exit(10s) == 0);
}

BOOST_AUTO_TEST_CASE(bad_command_lines_exit_two_with_one_line)
{
    temp_dir tmp("warpsmith-worker-stderr");
    const auto err = tmp.path() / "stderr.txt";
    for (std::vector<std::string> args :
         {std::vector<std::string>{worker_path()},
          std::vector<std::string>{worker_path(), "--bogus"},
          std::vector<std::string>{worker_path(), "--device", "x"},
          std::vector<std::string>{worker_path(), "--compile", "--log-level", "loud"},
          std::vector<std::string>{worker_path(), "--compile", "--memory-limit-mib", "0"},
          std::vector<std::string>{worker_path(), "--compile", "--memory-limit-mib", "12x"},
          std::vector<std::string>{worker_path(), "--device", "0", "--memory-limit-mib", "64"}})
    {
        worker_pipe w(args, err.string());
        BOOST_TEST(w.wait_exit(10s) == 2);
        const std::string text = read_file(err);
        BOOST_TEST(text.rfind("warpsmith-worker: ", 0) == 0u, text);
        BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 1, text);
    }
}

BOOST_AUTO_TEST_CASE(help_exits_zero_with_an_example)
{
    worker_pipe w({worker_path(), "--help"});
    std::string text;
    while (auto line = w.read_line(10s))
        text += *line + "\n";
    BOOST_TEST(w.wait_exit(10s) == 0);
    BOOST_TEST(text.find("--device K") != std::string::npos);
    BOOST_TEST(text.find("Example") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
