#pragma once

// Helpers shared by the autotune tests: the test workload, an H200-like device description, fake
// worker results and a fake compile service, and a coroutine runner.

#include "agents/strategy.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/workload/workload.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace warpsmith::test
{

inline boost::json::object h200_device()
{
    return boost::json::parse(R"({"name": "NVIDIA H200", "arch": "sm_90", "sm_count": 132,
        "clock_mhz": 1980, "memory_clock_mhz": 3201, "memory_bus_bits": 6144,
        "max_threads_per_block": 1024, "max_block": [1024, 1024, 64],
        "max_grid": [2147483647, 65535, 65535], "shared_memory_per_block_bytes": 49152,
        "shared_memory_per_block_optin_bytes": 232448, "registers_per_block": 65536, "warp_size": 32})")
        .as_object();
}

inline workload vscale_workload()
{
    return workload::load(source_dir() / "tests/agents/autotune/data/vscale");
}

/// A worker evaluation result: valid with this median on every performance case, or invalid.
inline protocol::evaluation_result fake_result(const workload& w,
                                               std::optional<double> median_us,
                                               const std::string& failure_kind = "mismatch")
{
    boost::json::array cases;
    for (const auto& c : w.cases)
    {
        boost::json::object co{{"name", c.name},
                               {"role", c.role == case_role::performance ? "performance" : "correctness"}};
        co["timing"] = median_us && c.role == case_role::performance
                           ? boost::json::value(boost::json::object{{"median_us", *median_us}})
                           : boost::json::value(nullptr);
        cases.push_back(std::move(co));
    }
    if (median_us)
        return protocol::evaluation_result::from_json(boost::json::object{
            {"status", "valid"}, {"failure", nullptr}, {"cases", cases}, {"score_us", *median_us}});
    return protocol::evaluation_result::from_json(boost::json::object{
        {"status", "invalid"},
        {"failure", boost::json::object{{"kind", failure_kind}, {"case", "odd"}, {"message", "x"}}},
        {"cases", cases},
        {"score_us", nullptr}});
}

/// The -D defines of a compile request.
inline std::map<std::string, std::int64_t> request_defines(const compile_request& r)
{
    std::map<std::string, std::int64_t> d;
    for (const auto& o : r.options)
    {
        if (o.rfind("-D", 0) != 0)
            continue;
        const auto eq = o.find('=');
        d[o.substr(2, eq - 2)] = std::stoll(o.substr(eq + 1));
    }
    return d;
}

/// strategy_services whose compile() answers from a function of the request.
class fake_services final : public strategy_services
{
public:
    explicit fake_services(std::function<compile_output(const compile_request&)> fn) : fn_(std::move(fn)) {}

    boost::asio::awaitable<compile_output> compile(compile_request request) override
    {
        ++compiles;
        if (fail_next)
        {
            fail_next = false;
            throw std::runtime_error("compile worker died");
        }
        co_return fn_(request);
    }
    bool record_usage(int, const token_usage&) override { return true; }
    std::string llm_record_dir() const override { return {}; }

    int compiles = 0;
    bool fail_next = false;

private:
    std::function<compile_output(const compile_request&)> fn_;
};

/// Runs an awaitable to completion on a fresh io_context (fails the test after a deadline).
template <class T>
T run_coro(boost::asio::awaitable<T> a)
{
    boost::asio::io_context ioc;
    std::optional<T> out;
    std::exception_ptr error;
    boost::asio::co_spawn(ioc,
                          std::move(a),
                          [&](std::exception_ptr e, T v)
                          {
                              error = e;
                              if (!e)
                                  out = std::move(v);
                          });
    ioc.run_for(std::chrono::seconds(30));
    if (error)
        std::rethrow_exception(error);
    BOOST_TEST_REQUIRE(out.has_value(), "the coroutine did not finish");
    return std::move(*out);
}

}  // namespace warpsmith::test
