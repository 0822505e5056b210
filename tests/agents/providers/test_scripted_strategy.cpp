// The scripted provider: file order, sidecars and their defaults, bad sidecars, simulated latency on
// a virtual clock (a cancelled proposal consumes nothing), repair, exhaustion, resume; and the
// --provider registry.

#include "agents/providers/provider_registry.hpp"
#include "agents/providers/scripted_strategy.hpp"
#include "engine/search/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/search/engine_test_support.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/test/unit_test.hpp>

using namespace warpsmith;
using namespace warpsmith::test;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

struct scripted_fixture
{
    temp_dir tmp{"warpsmith-scripted"};
    workload work = vadd_workload();
    fs::path dir = tmp.path() / "cands";
    asio::io_context ioc;
    virtual_clock clock{ioc};

    scripted_fixture() { fs::create_directories(dir); }

    void file(const std::string& name, const std::string& text) { write_file_atomic(dir / name, text); }

    scripted_options options(std::chrono::milliseconds latency = 0ms)
    {
        scripted_options o;
        o.dir = dir;
        o.latency = latency;
        virtual_clock* c = &clock;
        o.sleep = [c](std::chrono::nanoseconds d) { return c->sleep_for(d); };
        return o;
    }

    std::optional<proposal> propose(strategy& s, const evaluated_candidate* repair = nullptr)
    {
        std::optional<proposal> out;
        bool done = false;
        proposal_context ctx;
        ctx.repair_of = repair;
        asio::co_spawn(ioc, s.propose(ctx), [&](std::exception_ptr e, std::optional<proposal> p) {
            if (e)
                std::rethrow_exception(e);
            out = std::move(p);
            done = true;
        });
        BOOST_REQUIRE(clock.run_until([&] { return done; }));
        return out;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(scripted_strategy_suite)

BOOST_FIXTURE_TEST_CASE(files_in_name_order_with_sidecar_fields_and_defaults, scripted_fixture)
{
    file("b.cu", kernel_with({"median_us=80"}));
    file("a.cu", kernel_with({"median_us=90"}));
    file("a.json", R"j({"rationale": "first", "defines": {"TILE": 4}, "options": ["--use_fast_math"],
                       "launch": {"grid": ["ceil_div(n,1024)"], "block": [256]},
                       "overrides": {"odd": {"grid": [1], "block": [64]}}})j");
    file("notes.txt", "not a candidate");
    scripted_strategy s(work, options());
    BOOST_TEST(s.size() == 2u);
    auto p = propose(s);
    BOOST_REQUIRE(p.has_value());
    BOOST_TEST(p->meta.at("file").as_string() == "a.cu");
    BOOST_TEST(p->rationale == "first");
    BOOST_TEST(p->cand.defines.at("TILE") == 4);
    BOOST_TEST(p->cand.options == std::vector<std::string>{"--use_fast_math"});
    BOOST_TEST(p->cand.launch.grid[0].text() == "ceil_div(n,1024)");
    BOOST_TEST(p->cand.overrides.count("odd") == 1u);
    BOOST_TEST(p->cand.entry == "vadd");
    p = propose(s);
    BOOST_TEST(p->meta.at("file").as_string() == "b.cu");
    BOOST_TEST(p->rationale == "scripted candidate b.cu");
    BOOST_TEST(p->cand.launch.grid[0].text() == work.launch.grid[0].text());  // the workload's plan
    BOOST_TEST(!propose(s).has_value());  // exhausted
}

BOOST_FIXTURE_TEST_CASE(bad_directories_and_sidecars_are_one_line_errors, scripted_fixture)
{
    auto message = [&](scripted_options o) -> std::string {
        try
        {
            scripted_strategy s(work, std::move(o));
        }
        catch (const user_error& e)
        {
            return e.what();
        }
        return "";
    };
    BOOST_TEST(message(options()).find("no .cu files") != std::string::npos);
    auto missing = options();
    missing.dir = tmp.path() / "nope";
    BOOST_TEST(message(missing).find("no such directory") != std::string::npos);
    file("a.cu", kernel_with({}));
    file("a.json", R"({"colour": "red"})");
    BOOST_TEST(message(options()).find("unknown key 'colour'") != std::string::npos);
    file("a.json", R"({"overrides": {"nope": {"grid": [1], "block": [1]}}})");
    BOOST_TEST(message(options()).find("nope") != std::string::npos);
    file("a.json", "[1, 2]");
    BOOST_TEST(message(options()).find("must be a JSON object") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(latency_is_simulated_and_a_cancelled_proposal_consumes_nothing, scripted_fixture)
{
    file("a.cu", kernel_with({"median_us=90"}));
    file("b.cu", kernel_with({"median_us=80"}));
    scripted_strategy s(work, options(2000ms));
    // Cancel a proposal while it waits on the "model".
    asio::cancellation_signal sig;
    bool cancelled = false;
    asio::co_spawn(ioc, s.propose(proposal_context{}),
                   asio::bind_cancellation_slot(sig.slot(), [&](std::exception_ptr e, std::optional<proposal>) {
                       cancelled = e != nullptr;
                   }));
    ioc.poll();
    sig.emit(asio::cancellation_type::terminal);
    BOOST_REQUIRE(clock.run_until([&] { return cancelled; }));
    BOOST_TEST(s.remaining() == 2u);
    const double t0 = clock.now_seconds();
    auto p = propose(s);
    BOOST_TEST(clock.now_seconds() - t0 == 2.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(p->meta.at("file").as_string() == "a.cu");
}

BOOST_FIXTURE_TEST_CASE(repair_takes_the_next_file_with_the_parent_set, scripted_fixture)
{
    file("a.cu", kernel_with({"invalid=mismatch"}));
    file("b.cu", kernel_with({"median_us=80"}));
    scripted_strategy s(work, options());
    auto first = propose(s);
    evaluated_candidate bad;
    bad.id = "c0001";
    bad.meta = first->meta;
    auto p = propose(s, &bad);
    BOOST_TEST(p->meta.at("file").as_string() == "b.cu");
    BOOST_TEST((p->parent == std::optional<std::string>("c0001")));
}

BOOST_FIXTURE_TEST_CASE(restore_marks_recorded_files_used, scripted_fixture)
{
    for (const char* f : {"a.cu", "b.cu", "c.cu", "d.cu"})
        file(f, kernel_with({"median_us=90"}));
    scripted_strategy s(work, options());
    // An earlier session recorded b.cu and c.cu (a.cu was in flight when it was killed).
    std::vector<evaluated_candidate> history(2);
    history[0].meta = boost::json::object{{"file", "b.cu"}};
    history[1].meta = boost::json::object{{"file", "c.cu"}};
    s.restore(history);
    BOOST_TEST(s.remaining() == 2u);
    BOOST_TEST(propose(s)->meta.at("file").as_string() == "a.cu");
    BOOST_TEST(propose(s)->meta.at("file").as_string() == "d.cu");
    BOOST_TEST(!propose(s).has_value());
}

BOOST_FIXTURE_TEST_CASE(registry_builds_scripted_and_refuses_the_rest, scripted_fixture)
{
    file("a.cu", kernel_with({}));
    provider_options o;
    o.name = "scripted";
    BOOST_CHECK_THROW(make_strategy(o, work), user_error);  // needs --candidates
    o.candidates_dir = dir;
    BOOST_TEST(make_strategy(o, work)->name() == "scripted");
    o.name = "openai";
    try
    {
        make_strategy(o, work);
        BOOST_FAIL("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(std::string(e.what()).find("not available in this build") != std::string::npos);
    }
    o.name = "nonsense";
    BOOST_CHECK_THROW(make_strategy(o, work), user_error);
    bool scripted_available = false;
    for (const auto& p : providers())
        scripted_available = scripted_available || (p.name == "scripted" && p.available);
    BOOST_TEST(scripted_available);
}

BOOST_AUTO_TEST_SUITE_END()
