// The engine adapter: candidates built from points (launch plans evaluated for every case), pruning
// after compile, batches of proposals in flight, resume from history without re-evaluation, and
// offline replay from the evaluation cache along the same trajectory as the online tune.

#include "agents/autotune/autotune_strategy.hpp"
#include "agents/autotune/evaluation_cache.hpp"
#include "agents/autotune/offline_replay.hpp"
#include "agents/autotune/simulated_annealing.hpp"
#include "harness/core/error.hpp"
#include "tests/agents/autotune/autotune_test_support.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <set>

using namespace warpsmith;
using defines_map = std::map<std::string, std::int64_t>;

namespace
{

/// The synthetic objective of vscale: optimum 10 at THREADS=256, ITEMS=4, STAGE=0.
double vscale_time(const defines_map& d)
{
    return 10 + std::abs(std::log2(static_cast<double>(d.at("THREADS"))) - 8) +
           std::abs(std::log2(static_cast<double>(d.at("ITEMS"))) - 2) +
           static_cast<double>(d.at("STAGE")) / 16;
}

/// A fake compile: registers grow with ITEMS, STAGE=64 brings 110000 bytes of static shared
/// memory, and THREADS=64 with STAGE=16 does not compile.
compile_output fake_compile(const compile_request& r)
{
    const auto d = test::request_defines(r);
    compile_output out;
    if (d.at("THREADS") == 64 && d.at("STAGE") == 16)
    {
        out.error = "static_assert failed: STAGE too small for 64 threads";
        return out;
    }
    out.compiled = true;
    out.resources.registers = static_cast<int>(32 + 16 * d.at("ITEMS"));
    out.resources.static_shared_bytes = d.at("STAGE") == 64 ? 110000 : 0;
    return out;
}

/// Which points fake_compile makes unlaunchable on an H200, computed by hand.
bool fake_pruned(const defines_map& d)
{
    const auto threads = d.at("THREADS"), items = d.at("ITEMS"), stage = d.at("STAGE");
    if (threads == 64 && stage == 16)
        return true;
    const std::int64_t regs = 32 + 16 * items;
    const std::int64_t per_warp = (regs * 32 + 255) / 256 * 256;
    if (per_warp * (threads / 32) > 65536)
        return true;
    return stage * threads * 4 + (stage == 64 ? 110000 : 0) > 232448;
}

evaluated_candidate evaluated(const proposal& p, int n, double score)
{
    evaluated_candidate c;
    c.id = "c" + std::to_string(10000 + n).substr(1);
    c.cand = p.cand;
    c.meta = p.meta;
    c.parent = p.parent;
    c.valid = std::isfinite(score);
    c.score_us = c.valid ? score : 0;
    c.failure_kind = c.valid ? "" : "mismatch";
    return c;
}

proposal_context context(strategy_services* services)
{
    proposal_context ctx;
    ctx.view.device = test::h200_device();
    ctx.services = services;
    return ctx;
}

autotune_options options(const std::string& strategy, std::uint64_t seed, std::size_t budget = 0)
{
    autotune_options o;
    o.strategy = strategy;
    o.optimizer.seed = seed;
    o.optimizer.expected_evaluations = budget;
    return o;
}

/// Proposes and observes up to n candidates (one branch); returns the proposals' points in order.
std::vector<defines_map> drive(autotune_strategy& s,
                               strategy_services& services,
                               int n,
                               int first_number = 1,
                               std::vector<evaluated_candidate>* history = nullptr)
{
    std::vector<defines_map> points;
    for (int i = 0; i < n; ++i)
    {
        auto p = test::run_coro(s.propose(context(&services)));
        if (!p)
            break;
        points.push_back(p->cand.defines);
        auto ec = evaluated(*p, first_number + i, vscale_time(p->cand.defines));
        s.observe(ec);
        if (history)
            history->push_back(ec);
    }
    return points;
}

/// Checks a candidate against its workload the way the engine and the worker will use it.
void check_candidate(const workload& w, const candidate& c)
{
    BOOST_TEST(c.validate(w) == "");
    BOOST_TEST(c.source == w.tunable->source);
    BOOST_TEST(c.entry == w.tunable->entry);
    for (const auto& k : w.cases)
    {
        const auto dims = c.plan_for(k.name).evaluate(c.launch_variables(k));
        BOOST_TEST(dims.threads_per_block() <= 1024);
        BOOST_TEST(dims.shared_bytes <= 232448);
    }
}

/// `s` (prepared) replayed offline against `cache` as `warpsmith tune --offline` does: scores from
/// the cache, a point it lacks compiled (fake_compile) and judged as online; `offline` receives the
/// points scored from the cache, in order.
autotune::offline_result replay_from_cache(autotune_strategy& s,
                                           autotune::evaluation_cache& cache,
                                           std::size_t budget,
                                           std::size_t batch,
                                           std::vector<defines_map>& offline)
{
    return autotune::replay_offline(
        s.optimizer(),
        [&](const autotune::point& p) -> std::optional<double>
        {
            const auto hit = cache.lookup(cache.key(s.candidate_for(p)));
            if (!hit)
                return std::nullopt;
            offline.push_back(s.space().defines(p));
            return hit->valid ? *hit->score_us : autotune::infeasible_score;
        },
        budget,
        batch,
        [&](const autotune::point& p)
        { return !s.judge_compiled(p, fake_compile(s.compile_request_for(p))).ok(); });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(autotune_strategy_suite)

BOOST_AUTO_TEST_CASE(bad_configurations_fail_at_construction)
{
    const auto w = test::vscale_workload();
    BOOST_CHECK_THROW(autotune_strategy(w, options("hill", 1)), user_error);
    const auto plain = workload::load(test::source_dir() / "tests/harness/workload/data/vector_add");
    BOOST_CHECK_THROW(autotune_strategy(plain, options("grid", 1)), user_error);
    auto bad = options("grid", 1);
    bad.compile_options = {"-I/etc"};
    BOOST_CHECK_THROW(autotune_strategy(w, bad), user_error);
}

BOOST_AUTO_TEST_CASE(candidates_are_the_tunable_kernel_with_the_point)
{
    const auto w = test::vscale_workload();
    autotune_strategy s(w, options("grid", 1));
    s.prepare(test::h200_device());
    BOOST_TEST(s.name() == "autotune-grid");
    auto sug = s.next_point();
    BOOST_TEST_REQUIRE(sug.has_value());
    const auto pr = s.make_proposal(*sug);
    check_candidate(w, pr.cand);
    BOOST_TEST((pr.cand.defines == s.space().defines(sug->p)));
    BOOST_TEST(pr.meta.at("point").as_object() == s.space().to_json(sug->p));
    BOOST_TEST(pr.meta.at("strategy").as_string() == "grid");
    BOOST_TEST(pr.rationale.find("THREADS=") != std::string::npos);
    // The launch plan is the tunable kernel's: it sees the defines.
    const auto dims = pr.cand.launch.evaluate(pr.cand.launch_variables(*w.find_case("big")));
    BOOST_TEST(dims.block[0] == pr.cand.defines.at("THREADS"));
    // The compile request carries the point as -D options.
    const auto req = s.compile_request_for(sug->p);
    BOOST_TEST((test::request_defines(req) == pr.cand.defines));
    BOOST_TEST(req.arch == "sm_90");
}

BOOST_AUTO_TEST_CASE(sgemm_candidates_launch_on_every_case)
{
    const auto dir = test::source_dir() / "bench/workloads/sgemm";
    if (!std::filesystem::exists(dir / "workload.json"))
    {
        BOOST_TEST_MESSAGE("bench/workloads/sgemm/workload.json is not there yet; checked vscale only");
        return;
    }
    const auto w = workload::load(dir);
    BOOST_TEST_REQUIRE(w.tunable.has_value());
    autotune_strategy s(w, options("grid", 1));
    s.prepare(test::h200_device());
    BOOST_TEST(s.stats().feasible > 0);
    BOOST_TEST(s.stats().feasible <= s.stats().total);
    int n = 0;
    while (auto sug = s.next_point())
    {
        const auto pr = s.make_proposal(*sug);
        check_candidate(w, pr.cand);
        if (++n == 500)
            break;
    }
    BOOST_TEST(n > 0);
}

BOOST_AUTO_TEST_CASE(grid_tune_prunes_after_compile_and_never_repeats)
{
    const auto w = test::vscale_workload();
    std::vector<boost::json::object> events;
    auto sink = [&](const boost::json::object& ev) { events.push_back(ev); };
    autotune_strategy s(w, options("grid", 1), sink);
    test::fake_services services(fake_compile);
    const auto points = drive(s, services, 1000);

    // Every feasible point either became a candidate or was pruned after compile, never both.
    const double feasible = s.stats().feasible;
    std::set<defines_map> proposed(points.begin(), points.end());
    BOOST_TEST(proposed.size() == points.size());
    for (const auto& pp : s.pruned())
    {
        defines_map d;
        for (const auto& kv : pp.point)
            d[std::string(kv.key())] = kv.value().as_int64();
        BOOST_TEST(fake_pruned(d));
        BOOST_TEST(!proposed.count(d));
    }
    for (const auto& d : proposed)
        BOOST_TEST(!fake_pruned(d));
    BOOST_TEST(static_cast<double>(points.size() + s.pruned().size()) == feasible);
    BOOST_TEST(services.compiles == static_cast<int>(feasible));
    BOOST_TEST(s.pruned().size() >= 4u);

    // The reasons: one compile failure kind, register and shared-memory prunes.
    const auto report = s.report();
    const auto& by = report.at("pruned").at("by_reason").as_object();
    BOOST_TEST(by.at("compile_failed").as_int64() > 0);
    BOOST_TEST(by.at("over_resources").as_int64() > 0);
    BOOST_TEST(report.at("space").at("total").as_double() == 72.0);
    BOOST_TEST(report.at("best").at("score_us").as_double() == 10.0);
    BOOST_TEST(report.at("best").at("point").at("THREADS").as_int64() == 256);
    BOOST_TEST(s.curve().size() == points.size());
    BOOST_TEST(*s.curve().best() == 10.0);

    // Events: the space once, then one per pruned point.
    BOOST_TEST_REQUIRE(!events.empty());
    BOOST_TEST(events.front().at("event").as_string() == "tune_space");
    BOOST_TEST(events.size() == 1 + s.pruned().size());
}

BOOST_AUTO_TEST_CASE(compile_failures_of_the_pool_give_the_point_back)
{
    const auto w = test::vscale_workload();
    autotune_strategy s(w, options("random", 4));
    test::fake_services services(fake_compile);
    services.fail_next = true;
    BOOST_CHECK_THROW(test::run_coro(s.propose(context(&services))), std::runtime_error);
    // The point that was being compiled is proposed next, not lost: the tune goes on exactly as
    // one whose compile never failed.
    auto p = test::run_coro(s.propose(context(&services)));
    BOOST_TEST_REQUIRE(p.has_value());
    autotune_strategy undisturbed(w, options("random", 4));
    test::fake_services fine(fake_compile);
    auto q = test::run_coro(undisturbed.propose(context(&fine)));
    BOOST_TEST_REQUIRE(q.has_value());
    BOOST_TEST((p->cand.defines == q->cand.defines));
    BOOST_TEST(s.optimizer().asked() == undisturbed.optimizer().asked());
}

BOOST_AUTO_TEST_CASE(branches_get_distinct_points_in_one_batch)
{
    const auto w = test::vscale_workload();
    autotune_strategy s(w, options("local", 2));
    // A compile that suspends, so the branches' proposals interleave as they do in the engine.
    struct yielding_services final : strategy_services
    {
        boost::asio::awaitable<compile_output> compile(compile_request r) override
        {
            auto ex = co_await boost::asio::this_coro::executor;
            co_await boost::asio::post(ex, boost::asio::use_awaitable);
            co_return fake_compile(r);
        }
        bool record_usage(int, const token_usage&) override { return true; }
        std::string llm_record_dir() const override { return {}; }
    } services;
    for (int round = 0; round < 6; ++round)
    {
        boost::asio::io_context ioc;
        std::vector<std::optional<proposal>> got(4);
        for (int b = 0; b < 4; ++b)
        {
            auto ctx = context(&services);
            ctx.branch = b;
            boost::asio::co_spawn(ioc,
                                  s.propose(ctx),
                                  [&got, b](std::exception_ptr e, std::optional<proposal> p)
                                  {
                                      BOOST_TEST(!e);
                                      got[static_cast<std::size_t>(b)] = std::move(p);
                                  });
        }
        ioc.run();
        std::set<defines_map> distinct;
        for (auto& p : got)
        {
            BOOST_TEST_REQUIRE(p.has_value());
            distinct.insert(p->cand.defines);
        }
        BOOST_TEST(distinct.size() == 4u);
        int n = round * 4;
        for (auto& p : got)
            s.observe(evaluated(*p, ++n, vscale_time(p->cand.defines)));
    }
    BOOST_TEST(s.curve().size() == 24u);
}

BOOST_AUTO_TEST_CASE(resume_replays_the_same_trajectory_without_reevaluating)
{
    const auto w = test::vscale_workload();
    for (const auto& strategy : {"random", "local", "anneal", "genetic"})
    {
        // The uninterrupted tune.
        autotune_strategy full(w, options(strategy, 17, 30));
        test::fake_services s1(fake_compile);
        const auto reference = drive(full, s1, 30);
        BOOST_TEST_REQUIRE(reference.size() == 30u);

        // Interrupted after 12, then resumed from the history the engine keeps.
        autotune_strategy first(w, options(strategy, 17, 30));
        test::fake_services s2(fake_compile);
        std::vector<evaluated_candidate> history;
        const auto part1 = drive(first, s2, 12, 1, &history);

        autotune_strategy resumed(w, options(strategy, 17, 30));
        resumed.restore(history);
        test::fake_services s3(fake_compile);
        const auto part2 = drive(resumed, s3, 18, 13);

        std::vector<defines_map> joined = part1;
        joined.insert(joined.end(), part2.begin(), part2.end());
        BOOST_TEST((joined == reference), strategy << ": the resumed tune took another path");
        // Nothing evaluated in the first session was proposed again.
        std::set<defines_map> before(part1.begin(), part1.end());
        for (const auto& d : part2)
            BOOST_TEST(!before.count(d), strategy);
        BOOST_TEST(resumed.curve().size() == 30u);
    }
}

BOOST_AUTO_TEST_CASE(candidates_left_pending_are_recorded_not_reproposed)
{
    // The engine evaluates candidates an earlier session proposed before this session proposes;
    // their observe() must keep the optimizer from asking for them again.
    const auto w = test::vscale_workload();
    autotune_strategy s(w, options("grid", 1));
    s.prepare(test::h200_device());
    auto sug = s.next_point();
    const auto pr = s.make_proposal(*sug);

    autotune_strategy again(w, options("grid", 1));
    again.observe(evaluated(pr, 1, 42.0));  // before the first propose: the space is not built yet
    test::fake_services services(fake_compile);
    const auto points = drive(again, services, 5, 2);
    for (const auto& d : points)
        BOOST_TEST((d != pr.cand.defines));
}

BOOST_AUTO_TEST_CASE(offline_replay_from_the_cache_follows_the_online_tune)
{
    test::temp_dir dir;
    const auto w = test::vscale_workload();
    const auto timing = boost::json::object{{"mode", "cold"}};
    std::vector<defines_map> online;
    {
        // The online tune stores every evaluation in the cache, as `warpsmith tune` does.
        autotune_strategy s(w, options("anneal", 23, 25));
        autotune::evaluation_cache cache(w, test::h200_device(), timing, dir.path());
        test::fake_services services(fake_compile);
        for (int i = 0; i < 25; ++i)
        {
            auto p = test::run_coro(s.propose(context(&services)));
            BOOST_TEST_REQUIRE(p.has_value());
            online.push_back(p->cand.defines);
            const double t = vscale_time(p->cand.defines);
            cache.store(autotune::make_cache_entry(
                cache.key(p->cand), p->cand, test::fake_result(w, t), "c", "run-001"));
            s.observe(evaluated(*p, i + 1, t));
        }
    }
    // Offline: the same strategy and seed, scores from the cache only. Points pruned online are
    // not in the cache; the replay compiles them, tells them +inf and does not count them, as the
    // online tune did.
    autotune_strategy s(w, options("anneal", 23, 25));
    s.prepare(test::h200_device());
    autotune::evaluation_cache cache(w, test::h200_device(), timing, dir.path());
    BOOST_TEST(cache.size() == 25u);
    std::vector<defines_map> offline;
    const auto r = replay_from_cache(s, cache, 25, 1, offline);
    BOOST_TEST(r.evaluated == 25u);
    BOOST_TEST(r.unknown == 0u);
    BOOST_TEST(r.pruned > 0u);
    BOOST_TEST((offline == online));
}

BOOST_AUTO_TEST_CASE(scores_reach_the_optimizer_in_ask_order_whatever_order_evaluations_finish)
{
    // Four branches per iteration (barrier mode): evaluations finish in any order, yet the points
    // proposed next are the same, and so is the offline replay of the cache (batches of four).
    const auto w = test::vscale_workload();
    const auto timing = boost::json::object{{"mode", "cold"}};
    test::temp_dir dir;
    auto tune = [&](const std::vector<int>& finish_order, bool store)
    {
        autotune_strategy s(w, options("anneal", 7, 40));
        autotune::evaluation_cache cache(w, test::h200_device(), timing, dir.path());
        test::fake_services services(fake_compile);
        std::vector<defines_map> proposed;
        int n = 0;
        for (int iteration = 0; iteration < 10; ++iteration)
        {
            std::vector<proposal> batch;
            for (int b = 0; b < 4; ++b)
            {
                auto p = test::run_coro(s.propose(context(&services)));
                BOOST_TEST_REQUIRE(p.has_value());
                proposed.push_back(p->cand.defines);
                batch.push_back(std::move(*p));
            }
            for (int k : finish_order)
            {
                const double t = vscale_time(batch[static_cast<std::size_t>(k)].cand.defines);
                if (store)
                    cache.store(autotune::make_cache_entry(cache.key(batch[static_cast<std::size_t>(k)].cand),
                                                           batch[static_cast<std::size_t>(k)].cand,
                                                           test::fake_result(w, t),
                                                           "c",
                                                           "run-001"));
                s.observe(evaluated(batch[static_cast<std::size_t>(k)], ++n, t));
            }
        }
        return proposed;
    };
    const auto in_order = tune({0, 1, 2, 3}, true);
    BOOST_TEST((tune({2, 0, 3, 1}, false) == in_order));
    BOOST_TEST((tune({3, 2, 1, 0}, false) == in_order));

    autotune_strategy s(w, options("anneal", 7, 40));
    s.prepare(test::h200_device());
    autotune::evaluation_cache cache(w, test::h200_device(), timing, dir.path());
    std::vector<defines_map> offline;
    const auto r = replay_from_cache(s, cache, 40, 4, offline);
    BOOST_TEST(r.unknown == 0u);
    BOOST_TEST(r.evaluated == 40u);
    BOOST_TEST((offline == in_order));
}

BOOST_AUTO_TEST_CASE(wall_time_budget_advances_the_schedule)
{
    const auto w = test::vscale_workload();
    double now = 0;
    auto o = options("anneal", 3);
    o.max_wall_seconds = 100;
    o.now_seconds = [&] { return now; };
    autotune_strategy s(w, o);
    s.prepare(test::h200_device());
    (void)s.next_point();
    now = 100;  // the whole wall-time budget has passed
    (void)s.next_point();
    const auto* anneal = dynamic_cast<const autotune::simulated_annealing*>(&s.optimizer());
    BOOST_TEST_REQUIRE(anneal != nullptr);
    BOOST_TEST(anneal->temperature() == o.optimizer.final_temperature, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_SUITE_END()
