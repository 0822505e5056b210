// The scripted provider: file order, sidecars and their defaults, bad sidecars, simulated latency on
// a virtual clock (a cancelled proposal consumes nothing), repair, exhaustion, resume; and the
// --provider registry: every provider built from its name, one-line refusals, run.json round trips.

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

namespace
{

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
        asio::co_spawn(ioc,
                       s.propose(ctx),
                       [&](std::exception_ptr e, std::optional<proposal> p)
                       {
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
    BOOST_TEST(!propose(s).has_value());                                      // exhausted
}

BOOST_FIXTURE_TEST_CASE(bad_directories_and_sidecars_are_one_line_errors, scripted_fixture)
{
    auto message = [&](scripted_options o) -> std::string
    {
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
    std::filesystem::remove(options().dir / "a.json");
    // A candidates folder can come from anyone (a suite, a run's record): a .cu or .json that is
    // a link would put the file it points at into the run and the model's prompts.
    write_file_atomic(tmp.path() / "secret.env", "OPENAI_API_KEY=sk-secret\n");
    std::filesystem::create_symlink(tmp.path() / "secret.env", options().dir / "b.cu");
    BOOST_TEST(message(options()).find(
                   "b.cu is a symbolic link; candidates are read only from plain files") != std::string::npos,
               message(options()));
}

BOOST_FIXTURE_TEST_CASE(latency_is_simulated_and_a_cancelled_proposal_consumes_nothing, scripted_fixture)
{
    file("a.cu", kernel_with({"median_us=90"}));
    file("b.cu", kernel_with({"median_us=80"}));
    scripted_strategy s(work, options(2000ms));
    // Cancel a proposal while it waits on the "model".
    asio::cancellation_signal sig;
    bool cancelled = false;
    asio::co_spawn(
        ioc,
        s.propose(proposal_context{}),
        asio::bind_cancellation_slot(
            sig.slot(), [&](std::exception_ptr e, std::optional<proposal>) { cancelled = e != nullptr; }));
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

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(provider_registry_suite)

namespace
{

std::string error_of(const provider_options& o, const workload& w)
{
    asio::io_context ioc;
    try
    {
        make_strategy(o, w, ioc.get_executor());
    }
    catch (const user_error& e)
    {
        return e.what();
    }
    return "(no error)";
}

workload tunable_workload()
{
    return workload::load(source_dir() / "tests/agents/autotune/data/vscale");
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(every_provider_is_built_from_its_name, scripted_fixture)
{
    file("a.cu", kernel_with({}));
    provider_options o;
    o.name = "scripted";
    BOOST_TEST(error_of(o, work).find("--provider scripted needs --candidates DIR") != std::string::npos);
    o.candidates_dir = dir;
    auto scripted = make_strategy(o, work, ioc.get_executor());
    BOOST_TEST(scripted.strat->name() == "scripted");
    BOOST_TEST(!scripted.fatal_error);

    // A model provider: a client and an LLM strategy (refine unless --strategy says otherwise).
    provider_options chat;
    chat.name = "openai-chat";
    chat.llm.base_url = "http://127.0.0.1:9/v1";
    chat.llm.model = "local-model";
    auto refine = make_strategy(chat, work, ioc.get_executor());
    BOOST_TEST(refine.strat->name() == "refine");
    BOOST_REQUIRE(refine.fatal_error);
    BOOST_TEST(!refine.fatal_error().has_value());
    chat.strategy = "evolve";
    BOOST_TEST(make_strategy(chat, work, ioc.get_executor()).strat->name() == "evolve");

    // autotune: the optimizer named by --strategy (anneal by default) over the tunables.
    const auto tunable = tunable_workload();
    provider_options tune;
    tune.name = "autotune";
    BOOST_TEST(make_strategy(tune, tunable, ioc.get_executor()).strat->name() == "autotune-anneal");
    tune.strategy = "grid";
    BOOST_TEST(make_strategy(tune, tunable, ioc.get_executor()).strat->name() == "autotune-grid");
}

BOOST_FIXTURE_TEST_CASE(what_a_provider_cannot_take_is_one_line, scripted_fixture)
{
    provider_options o;
    o.name = "nonsense";
    BOOST_TEST(
        error_of(o, work) ==
        "--provider nonsense: unknown provider (known: scripted, openai, openai-chat, replay, autotune)");
    o.name = "scripted";
    o.candidates_dir = dir;
    o.strategy = "anneal";
    BOOST_TEST(error_of(o, work) ==
               "--strategy is an option of the model providers and of autotune, not of --provider scripted");
    o.name = "openai-chat";
    o.strategy = "greedy";
    o.llm.base_url = "http://127.0.0.1:9/v1";
    o.llm.model = "m";
    BOOST_TEST(error_of(o, work).find("--strategy greedy: unknown strategy (refine, beam, evolve)") !=
               std::string::npos);
    o.name = "replay";
    o.strategy.clear();
    BOOST_TEST(error_of(o, work).find("--provider replay needs --replay-from RUN") != std::string::npos);
    o.name = "autotune";
    BOOST_TEST(error_of(o, work).find("has no tunables") != std::string::npos);
    o.strategy = "hill-climb";
    BOOST_TEST(error_of(o, tunable_workload()).find("unknown autotune strategy 'hill-climb'") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(providers_lists_every_name_with_its_strategies)
{
    std::vector<std::string> names;
    for (const auto& p : providers())
        names.push_back(p.name);
    BOOST_TEST(names ==
               (std::vector<std::string>{"scripted", "openai", "openai-chat", "replay", "autotune"}));
    for (const auto& p : providers())
    {
        if (p.name == "scripted")
            BOOST_TEST(p.strategies.empty());
        else if (p.name == "autotune")
        {
            BOOST_TEST(p.default_strategy == "anneal");
            BOOST_TEST(p.strategies.size() == 5u);
        }
        else
        {
            BOOST_TEST(p.default_strategy == "refine");
            BOOST_TEST(p.strategies == (std::vector<std::string>{"refine", "beam", "evolve"}));
        }
    }
}

BOOST_AUTO_TEST_CASE(run_json_keeps_what_resume_needs)
{
    provider_options tune;
    tune.name = "autotune";
    tune.seed = 7;
    tune.strategy = "genetic";
    tune.tune.optimizer.expected_evaluations = 40;
    boost::json::object config;
    tune.to_config(config);
    BOOST_TEST(config.at("provider").at("name").as_string() == "autotune");
    BOOST_TEST(config.at("tune").at("strategy").as_string() == "genetic");
    const auto back = provider_options::from_config(config, "run.json");
    BOOST_TEST(back.tune_options().strategy == "genetic");
    BOOST_TEST(back.tune_options().optimizer.seed == 7u);
    BOOST_TEST(back.tune_options().optimizer.expected_evaluations == 40u);

    provider_options chat;
    chat.name = "openai-chat";
    chat.seed = 3;
    chat.strategy = "beam";
    chat.llm.model = "m";
    config = {};
    chat.to_config(config);
    BOOST_TEST(config.at("llm").at("strategy").as_string() == "beam");
    const auto chat_back = provider_options::from_config(config, "run.json");
    BOOST_TEST(chat_back.model_options().strategy == "beam");
    BOOST_TEST(chat_back.model_options().provider == "openai-chat");
    BOOST_TEST(chat_back.model_options().model == "m");

    provider_options scripted;
    scripted.candidates_dir = "/tmp/cands";
    config = {};
    scripted.to_config(config);
    BOOST_TEST(!config.contains("llm"));
    BOOST_TEST(!config.contains("tune"));
    BOOST_TEST(*provider_options::from_config(config, "run.json").candidates_dir == "/tmp/cands");

    config.erase("provider");
    BOOST_CHECK_THROW(provider_options::from_config(config, "run.json"), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
