// The autotune strategy driven by the engine's search loop (engine/search), with a fake backend
// whose scores are a function of the candidates' defines: budgets, exhaustion, batches of
// branches, pruned points never reaching a GPU, and a resumed tune continuing the same trajectory.

#include "agents/autotune/autotune_strategy.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/clock.hpp"
#include "engine/search/evaluation_backend.hpp"
#include "engine/search/search_engine.hpp"
#include "tests/agents/autotune/autotune_test_support.hpp"

#include <boost/json/array.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <set>

using namespace warpsmith;
using defines_map = std::map<std::string, std::int64_t>;

namespace
{

double vscale_time(const defines_map& d)
{
    return 10 + std::abs(std::log2(static_cast<double>(d.at("THREADS"))) - 8) +
           std::abs(std::log2(static_cast<double>(d.at("ITEMS"))) - 2) +
           static_cast<double>(d.at("STAGE")) / 16;
}

/// Compiles instantly (registers grow with ITEMS: ITEMS=8 at 512 threads cannot launch) and
/// "times" a point at vscale_time(defines) µs; the reference takes 40 µs.
class fake_backend final : public evaluation_backend
{
public:
    explicit fake_backend(const workload& w) : w_(w), device_(test::h200_device()) {}

    boost::asio::awaitable<void> start(const workload&, std::uint64_t) override { co_return; }

    boost::asio::awaitable<compile_output> compile(compile_request r) override
    {
        ++compiles;
        compile_output out;
        out.compiled = true;
        out.cubin = "cubin";
        const auto d = test::request_defines(r);
        out.resources.registers = d.count("ITEMS") ? static_cast<int>(32 + 16 * d.at("ITEMS")) : 32;
        co_return out;
    }

    boost::asio::awaitable<gpu_evaluation> evaluate(int gpu, evaluate_request req) override
    {
        gpu_evaluation ev;
        ev.device = gpu;
        if (req.name == "reference")
        {
            ev.result = test::fake_result(w_, 40.0);
            co_return ev;
        }
        const auto& d = req.cand.defines;
        // A point that the registers make unlaunchable must never get here.
        if (d.at("ITEMS") == 8 && d.at("THREADS") >= 512)
            ++unlaunchable;
        evaluated.push_back(d);
        ev.result = test::fake_result(w_, vscale_time(d));
        co_return ev;
    }

    boost::asio::awaitable<protocol::interleaved_result> time_interleaved(
        int, std::vector<std::pair<std::string, evaluate_request>> entries, int) override
    {
        boost::json::object timings;
        for (const auto& [key, req] : entries)
        {
            const double t = key == "reference" ? 40.0 : vscale_time(req.cand.defines);
            timings[key] = boost::json::object{{"big", boost::json::object{{"median_us", t}}}};
        }
        co_return protocol::interleaved_result::from_json(
            boost::json::object{{"timings", std::move(timings)}});
    }

    boost::asio::awaitable<void> stop() override { co_return; }
    int gpu_count() const override { return 1; }
    const boost::json::object& device_info(int) const override { return device_; }
    gpu_status status(int) const override { return {}; }
    int compiles_in_flight() const override { return 0; }

    std::vector<defines_map> evaluated;
    int compiles = 0;
    int unlaunchable = 0;

private:
    const workload& w_;
    boost::json::object device_;
};

struct tune_outcome
{
    search_result result;
    std::vector<evaluated_candidate> history;
    std::vector<defines_map> evaluated;
    int unlaunchable = 0;
    std::size_t pruned = 0;
};

/// One tune session in run directory `run` (created, or reopened with its journal when resuming).
tune_outcome tune(const workload& w,
                  const std::string& strategy,
                  std::uint64_t seed,
                  search_options opts,
                  const std::filesystem::path& results,
                  std::optional<std::filesystem::path> resume_dir = std::nullopt)
{
    boost::asio::io_context ioc;
    steady_clock_source clock;
    fake_backend backend(w);
    autotune_options to;
    to.strategy = strategy;
    to.optimizer.seed = seed;
    if (opts.budgets.candidates)
        to.optimizer.expected_evaluations = static_cast<std::size_t>(*opts.budgets.candidates);
    autotune_strategy strat(w, to);
    std::optional<run_directory> run;
    std::optional<replayed_run> resume;
    if (resume_dir)
    {
        run = run_directory::open(*resume_dir);
        resume = replay_events(read_journal(run->journal_path()).events);
    }
    else
    {
        run = run_directory::create(results);
        run->write_workload(w, std::nullopt);
    }
    journal_writer journal(run->journal_path(), resume ? resume->next_seq : 1);
    search_engine engine(
        ioc, backend, strat, clock, w, opts, *run, journal, boost::json::object{{"tool", "test"}});
    tune_outcome out;
    bool done = false;
    std::exception_ptr error;
    boost::asio::co_spawn(ioc,
                          engine.run(std::move(resume)),
                          [&](std::exception_ptr e, search_result r)
                          {
                              error = e;
                              out.result = std::move(r);
                              done = true;
                          });
    ioc.run_for(std::chrono::seconds(60));
    if (error)
        std::rethrow_exception(error);
    BOOST_TEST_REQUIRE(done);
    out.history = engine.history();
    out.evaluated = backend.evaluated;
    out.unlaunchable = backend.unlaunchable;
    out.pruned = strat.pruned().size();
    return out;
}

search_options options(int branches, std::optional<int> budget)
{
    search_options o;
    o.branches = branches;
    o.budgets.candidates = budget;
    o.confirm_top = 2;
    o.max_repairs = 0;
    o.grace_seconds = 1;
    return o;
}

std::vector<defines_map> points_of(const std::vector<evaluated_candidate>& h)
{
    std::vector<defines_map> out;
    for (const auto& c : h)
        out.push_back(c.cand.defines);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tune_search)

BOOST_AUTO_TEST_CASE(budgeted_tune_with_branches)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const auto out = tune(w, "local", 5, options(3, 24), dir.path());
    BOOST_TEST(out.result.status == "finished");
    BOOST_TEST(out.result.stop_reason == "max_candidates");
    BOOST_TEST(out.history.size() == 24u);
    const auto points = points_of(out.history);
    BOOST_TEST(std::set<defines_map>(points.begin(), points.end()).size() == 24u);
    BOOST_TEST(out.unlaunchable == 0);
    for (const auto& c : out.history)
    {
        BOOST_TEST(c.meta.at("point").as_object().size() == 3u);
        BOOST_TEST(c.rationale.find("local") == 0u);
    }
    // The winner went through the interleaved confirmation and is the best point found.
    BOOST_TEST_REQUIRE(out.result.winner.has_value());
    double best = 1e9;
    for (const auto& c : out.history)
        best = std::min(best, c.score_us);
    BOOST_TEST(out.result.summary.at("best").at("score_us").as_double() == best);
}

BOOST_AUTO_TEST_CASE(grid_tune_stops_when_the_space_is_exhausted)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const auto out = tune(w, "grid", 1, options(2, std::nullopt), dir.path());
    BOOST_TEST(out.result.status == "finished");
    BOOST_TEST(out.result.stop_reason == "exhausted");
    BOOST_TEST(out.pruned > 0u);
    BOOST_TEST(out.unlaunchable == 0);
    // Every feasible point was either evaluated or pruned after compile.
    const auto s =
        autotune::search_space::from_workload(w, autotune::device_limits::from_device(test::h200_device()));
    BOOST_TEST(static_cast<double>(out.history.size() + out.pruned) == s.stats().feasible);
    BOOST_TEST(out.result.summary.at("best").at("score_us").as_double() == 10.0,
               boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(resumed_tune_continues_the_same_trajectory)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    for (const auto& strategy : {"anneal", "genetic"})
    {
        const auto split = dir.path() / (std::string("split-") + strategy);
        const auto whole = tune(w, strategy, 9, options(1, 30), dir.path() / "whole");
        const auto first = tune(w, strategy, 9, options(1, 12), split);
        BOOST_TEST_REQUIRE(first.history.size() == 12u);
        const auto second = tune(w, strategy, 9, options(1, 30), split, split / "run-001");
        BOOST_TEST(second.history.size() == 30u, strategy << " stopped: " << second.result.stop_reason);
        for (std::size_t i = 0; i < std::min(second.history.size(), whole.history.size()); ++i)
            if (second.history[i].cand.defines != whole.history[i].cand.defines)
            {
                BOOST_TEST_MESSAGE(strategy << ": first difference at " << i << ": "
                                            << second.history[i].rationale << " vs "
                                            << whole.history[i].rationale);
                break;
            }
        BOOST_TEST((points_of(second.history) == points_of(whole.history)), strategy);
        // The second session evaluated only the new points.
        BOOST_TEST(second.evaluated.size() == 18u, strategy);
    }
}

BOOST_AUTO_TEST_SUITE_END()
