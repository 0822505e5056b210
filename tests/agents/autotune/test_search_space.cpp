// The search space: enumeration, restrictions (per case), pruning by device limits before and after
// compile, sizes before and after pruning, point conversions.

#include "agents/autotune/grid_search.hpp"
#include "agents/autotune/search_space.hpp"
#include "harness/core/error.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <set>

using namespace warpsmith;
using namespace warpsmith::autotune;

namespace
{

boost::json::object h200_device()
{
    return boost::json::parse(R"({"name": "NVIDIA H200", "arch": "sm_90", "max_threads_per_block": 1024,
        "max_block": [1024, 1024, 64], "max_grid": [2147483647, 65535, 65535],
        "shared_memory_per_block_bytes": 49152, "shared_memory_per_block_optin_bytes": 232448,
        "registers_per_block": 65536, "warp_size": 32})")
        .as_object();
}

workload vscale()
{
    return workload::load(test::source_dir() / "tests/agents/autotune/data/vscale");
}

/// The feasible set of vscale on an H200, computed independently of search_space.
std::set<std::map<std::string, std::int64_t>> vscale_expected()
{
    std::set<std::map<std::string, std::int64_t>> out;
    for (std::int64_t threads : {64, 128, 256, 512, 1024, 2048})
        for (std::int64_t items : {1, 2, 4, 8})
            for (std::int64_t stage : {0, 16, 64})
            {
                if (threads * items > 4096)
                    continue;
                bool ok = true;
                for (std::int64_t n : {1001, 4194304})
                    ok = ok && (n >= threads || items == 1);
                ok = ok && threads <= 1024 && stage * threads * 4 <= 232448;
                if (ok)
                    out.insert({{"ITEMS", items}, {"STAGE", stage}, {"THREADS", threads}});
            }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(search_space_suite)

BOOST_AUTO_TEST_CASE(dimensions_sorted_and_validated)
{
    search_space s({{"b", {4, 1, 2}}, {"a", {7}}}, {}, {}, std::nullopt, {});
    BOOST_TEST(s.size() == 2u);
    BOOST_TEST(s.dimensions()[0].name == "a");
    BOOST_TEST((s.dimensions()[1].values == std::vector<std::int64_t>{1, 2, 4}));
    BOOST_TEST(s.total() == 3.0);
    BOOST_CHECK_THROW(search_space({{"a", {1, 1}}}, {}, {}, std::nullopt, {}), user_error);
    BOOST_CHECK_THROW(search_space({{"a", {}}}, {}, {}, std::nullopt, {}), user_error);
    BOOST_CHECK_THROW(search_space({}, {}, {}, std::nullopt, {}), user_error);
}

BOOST_AUTO_TEST_CASE(point_conversions_round_trip)
{
    search_space s({{"BM", {64, 128}}, {"TM", {4, 8}}}, {}, {}, std::nullopt, {});
    const point p{1, 0};
    BOOST_TEST(s.describe(p) == "BM=128 TM=4");
    BOOST_TEST((s.defines(p) == std::map<std::string, std::int64_t>{{"BM", 128}, {"TM", 4}}));
    BOOST_TEST((s.from_defines(s.defines(p)) == p));
    BOOST_TEST((s.from_json(s.to_json(p)) == p));
    BOOST_TEST(!s.from_defines({{"BM", 96}, {"TM", 4}}));  // not an allowed value
    BOOST_TEST(!s.from_defines({{"BM", 64}}));             // missing tunable
    BOOST_TEST(!s.from_json(boost::json::parse(R"({"BM": 64, "TM": 4.5})")));
}

BOOST_AUTO_TEST_CASE(odometer_visits_every_point_once)
{
    search_space s({{"a", {1, 2, 3}}, {"b", {1, 2}}, {"c", {5, 6, 7, 8}}}, {}, {}, std::nullopt, {});
    std::set<std::uint64_t> seen;
    point p = s.first();
    std::size_t n = 0;
    do
    {
        seen.insert(s.index_of(p));
        ++n;
    } while (s.next(p));
    BOOST_TEST(n == 24u);
    BOOST_TEST(seen.size() == 24u);
    BOOST_TEST(*seen.rbegin() == 23u);
}

BOOST_AUTO_TEST_CASE(restrictions_hold_for_every_case)
{
    std::vector<std::pair<std::string, variables>> cases{{"small", {{"N", 100}}}, {"large", {{"N", 1000}}}};
    search_space s({{"T", {64, 128, 256}}}, {expression::parse("T <= N")}, cases, std::nullopt, {});
    BOOST_TEST(s.check({0}).ok());
    const auto f = s.check({1});
    BOOST_TEST(!f.ok());
    BOOST_TEST((f.result == verdict::restricted));
    BOOST_TEST(f.reason.find("case small") != std::string::npos);
    // A restriction that does not evaluate (division by zero) excludes the point instead of throwing.
    search_space z({{"A", {0, 2}}}, {expression::parse("8 / A >= 1")}, {}, std::nullopt, {});
    BOOST_TEST(!z.check({0}).ok());
    BOOST_TEST(z.check({1}).ok());
}

BOOST_AUTO_TEST_CASE(launch_limits_prune_before_compile)
{
    launch_plan plan = launch_plan::from_json(
        boost::json::parse(R"j({"grid": ["ceil_div(N, T)"], "block": ["T", "Y"], "shared_bytes": "S"})j"),
        "test");
    device_limits lim;
    lim.max_threads_per_block = 1024;
    lim.max_block = std::array<std::int64_t, 3>{1024, 1024, 64};
    lim.max_grid = std::array<std::int64_t, 3>{100, 65535, 65535};
    lim.shared_bytes_per_block = 48 * 1024;
    std::vector<std::pair<std::string, variables>> cases{{"c", {{"N", 4096}}}};
    search_space s({{"S", {0, 65536}}, {"T", {32, 512, 2048}}, {"Y", {1, 2}}}, {}, cases, plan, lim);
    auto check = [&](std::int64_t S, std::int64_t T, std::int64_t Y) {
        return s.check(*s.from_defines({{"S", S}, {"T", T}, {"Y", Y}}));
    };
    BOOST_TEST(check(0, 512, 2).ok());  // 1024 threads: the limit itself
    auto f = check(0, 2048, 1);
    BOOST_TEST((f.result == verdict::over_limits));
    BOOST_TEST(f.reason.find("2048 threads") != std::string::npos);
    f = check(65536, 512, 1);
    BOOST_TEST((f.result == verdict::over_limits));
    BOOST_TEST(f.reason.find("shared memory") != std::string::npos);
    f = check(0, 32, 1);  // grid.x = 128 > 100
    BOOST_TEST((f.result == verdict::over_limits));
    BOOST_TEST(f.reason.find("grid.x") != std::string::npos);
    // 512 x 2 = 1024 threads fit; the per-dimension limit is checked too.
    lim.max_block = std::array<std::int64_t, 3>{1024, 1, 64};
    search_space s2({{"T", {512}}, {"Y", {1, 2}}},
                    {},
                    {{"c", {{"N", 512}}}},
                    launch_plan::from_json(boost::json::parse(R"({"grid": [1], "block": ["T", "Y"]})"), "t"),
                    lim);
    BOOST_TEST(s2.check({0, 0}).ok());
    BOOST_TEST(s2.check({0, 1}).reason.find("block.y") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(resources_prune_after_compile)
{
    launch_plan plan = launch_plan::from_json(
        boost::json::parse(R"({"grid": [1], "block": ["T"], "shared_bytes": "D"})"), "test");
    device_limits lim;
    lim.shared_bytes_per_block = 232448;
    lim.registers_per_block = 65536;
    search_space s({{"D", {0, 200000}}, {"T", {256, 1024}}}, {}, {}, plan, lim);
    resource_usage r;
    r.registers = 64;
    r.static_shared_bytes = 0;
    // 64 registers x 1024 threads = 65536: exactly fits.
    BOOST_TEST(s.check_resources(*s.from_defines({{"D", 0}, {"T", 1024}}), r).ok());
    // 65 registers allocate 65*32 = 2080 -> 2304 per warp; 32 warps need 73728 > 65536.
    r.registers = 65;
    auto f = s.check_resources(*s.from_defines({{"D", 0}, {"T", 1024}}), r);
    BOOST_TEST((f.result == verdict::over_resources));
    BOOST_TEST(f.reason.find("registers") != std::string::npos);
    BOOST_TEST(s.check_resources(*s.from_defines({{"D", 0}, {"T", 256}}), r).ok());
    // Static shared memory adds to the dynamic amount.
    r.registers = 32;
    r.static_shared_bytes = 40000;
    f = s.check_resources(*s.from_defines({{"D", 200000}, {"T", 256}}), r);
    BOOST_TEST((f.result == verdict::over_resources));
    BOOST_TEST(f.reason.find("static") != std::string::npos);
    r.static_shared_bytes = 32000;
    BOOST_TEST(s.check_resources(*s.from_defines({{"D", 200000}, {"T", 256}}), r).ok());
}

BOOST_AUTO_TEST_CASE(device_limits_from_device_info)
{
    const auto lim = device_limits::from_device(h200_device());
    BOOST_TEST(*lim.max_threads_per_block == 1024);
    BOOST_TEST(*lim.shared_bytes_per_block == 232448);  // the opt-in maximum, not the default 48 KiB
    BOOST_TEST(*lim.registers_per_block == 65536);
    BOOST_TEST((*lim.max_block)[2] == 64);
    const auto none = device_limits::from_device({});
    BOOST_TEST(!none.max_threads_per_block);
    BOOST_TEST(!none.registers_per_block);
}

BOOST_AUTO_TEST_CASE(workload_space_matches_brute_force)
{
    const auto w = vscale();
    const auto s = search_space::from_workload(w, device_limits::from_device(h200_device()));
    BOOST_TEST(s.total() == 72.0);
    const auto expected = vscale_expected();
    std::set<std::map<std::string, std::int64_t>> got;
    point p = s.first();
    do
        if (s.check(p).ok())
            got.insert(s.defines(p));
    while (s.next(p));
    BOOST_TEST(got.size() == expected.size());
    BOOST_TEST((got == expected));

    const auto st = s.stats();
    BOOST_TEST(st.exact);
    BOOST_TEST(st.total == 72.0);
    BOOST_TEST(st.feasible == static_cast<double>(expected.size()));
    BOOST_TEST(st.satisfy_restrictions > st.feasible);
    BOOST_TEST(st.satisfy_restrictions < st.total);

    // Without device limits only the restrictions prune.
    const auto open = search_space::from_workload(w, device_limits{});
    BOOST_TEST(open.stats().feasible == st.satisfy_restrictions);
}

BOOST_AUTO_TEST_CASE(grid_enumerates_exactly_the_valid_set_in_order)
{
    const auto w = vscale();
    const auto s = search_space::from_workload(w, device_limits::from_device(h200_device()));
    grid_search g(s, {});
    std::vector<point> order;
    while (auto sug = g.ask())
        order.push_back(sug->p);
    std::set<std::map<std::string, std::int64_t>> got;
    for (const auto& p : order)
        got.insert(s.defines(p));
    BOOST_TEST(order.size() == vscale_expected().size());
    BOOST_TEST((got == vscale_expected()));
    // Grid order is the odometer order.
    for (std::size_t i = 1; i < order.size(); ++i)
        BOOST_TEST(s.index_of(order[i - 1]) < s.index_of(order[i]));
}

BOOST_AUTO_TEST_CASE(large_spaces_are_estimated)
{
    std::vector<dimension> dims;
    for (int i = 0; i < 8; ++i)
        dims.push_back({"D" + std::to_string(i), {0, 1, 2, 3, 4, 5, 6, 7}});  // 8^8 = 16.7M points
    search_space s(dims, {expression::parse("D0 <= 3")}, {}, std::nullopt, {});
    BOOST_TEST(!s.enumerable());
    const auto st = s.stats(20000);
    BOOST_TEST(!st.exact);
    BOOST_TEST(st.feasible / st.total > 0.45);
    BOOST_TEST(st.feasible / st.total < 0.55);
}

BOOST_AUTO_TEST_CASE(workload_without_tunables_is_a_user_error)
{
    const auto w = workload::load(test::source_dir() / "tests/harness/workload/data/vector_add");
    BOOST_CHECK_THROW(search_space::from_workload(w, {}), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
