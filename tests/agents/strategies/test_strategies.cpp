// The LLM strategies (agents/strategies) against the fake OpenAI server: kernel features of the
// real sgemm kernels, parent selection of refine / beam / evolve, a whole proposal round (tools
// through strategy_services::compile, records, usage, parents), schema repairs, repair mode,
// concurrency (B branches = B requests in flight, seen by the server and in the llm/ timestamps),
// fatal errors, budgets, replay exhaustion, workload inference with its checks, and the flag
// checks of the optimize command's model options.

#include "agents/llm/feedback.hpp"
#include "agents/llm/inference.hpp"
#include "agents/llm/kernel_contract.hpp"
#include "agents/llm/llm_records.hpp"
#include "agents/llm/providers/openai_client.hpp"
#include "agents/llm/providers/replay_client.hpp"
#include "agents/strategies/kernel_features.hpp"
#include "agents/strategies/llm_setup.hpp"
#include "agents/strategies/llm_strategy.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "tests/agents/support/async_test.hpp"
#include "tests/agents/support/fake_openai_server.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>

using namespace warpsmith;
using namespace warpsmith::test;
namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace
{

fs::path sgemm_dir()
{
    return source_dir() / "bench" / "workloads" / "sgemm";
}

const workload& sgemm()
{
    static const workload w = workload::load(sgemm_dir());
    return w;
}

json::object h200()
{
    return json::object{{"name", "NVIDIA H200"},
                        {"arch", "sm_90"},
                        {"sm_count", 132},
                        {"max_threads_per_sm", 2048},
                        {"registers_per_sm", 65536},
                        {"shared_memory_per_sm_bytes", 233472},
                        {"max_threads_per_block", 1024}};
}

candidate bench_candidate(const std::string& stem)
{
    auto c = candidate::from_json(read_json_file(sgemm_dir() / "candidates" / (stem + ".json")), stem);
    c.source = read_text_file(sgemm_dir() / "candidates" / (stem + ".cu"));
    return c;
}

evaluated_candidate evaluated(
    const std::string& id, int branch, const std::string& stem, double score, int registers = 64)
{
    evaluated_candidate c;
    c.id = id;
    c.branch = branch;
    c.iteration = 1;
    c.cand = bench_candidate(stem);
    c.rationale = stem;
    c.compile.compiled = true;
    c.compile.resources.registers = registers;
    c.valid = score > 0;
    c.score_us = score;
    c.speedup_vs_reference = score > 0 ? 5000.0 / score : 0;
    if (!c.valid)
    {
        c.failure_kind = "mismatch";
        c.failure_message = "case 37x61x19: 12 of 2257 elements differ";
    }
    else
        c.case_median_us = {{"4096x4096x4096", score}};
    return c;
}

struct fake_services final : strategy_services
{
    fs::path dir;
    int compiles = 0;
    std::int64_t used = 0;
    std::optional<std::int64_t> token_limit;
    std::vector<int> usage_branches;

    asio::awaitable<compile_output> compile(compile_request r) override
    {
        ++compiles;
        compile_output o;
        o.compiled = r.source.find("accum") == std::string::npos;
        o.error = o.compiled ? "" : "identifier \"accum\" is undefined";
        o.entries = {r.entry};
        o.resources.registers = 72;
        co_return o;
    }
    bool record_usage(int branch, const token_usage& u) override
    {
        usage_branches.push_back(branch);
        used += u.input + u.output;
        return !token_limit || used < *token_limit;
    }
    std::string llm_record_dir() const override { return dir.string(); }
};

struct strategy_fixture : io_fixture
{
    temp_dir tmp{"warpsmith-strategies"};
    fake_services services;
    std::vector<evaluated_candidate> history;

    strategy_fixture() { services.dir = tmp.path() / "llm"; }

    proposal_context context(int branch, int iteration, int branches = 4)
    {
        proposal_context ctx;
        ctx.branch = branch;
        ctx.iteration = iteration;
        ctx.view.work = &sgemm();
        ctx.view.device = h200();
        ctx.view.history = &history;
        ctx.view.reference_median_us = {{"4096x4096x4096", 5000.0}};
        ctx.view.iteration = iteration;
        ctx.view.branches = branches;
        ctx.services = &services;
        return ctx;
    }

    std::shared_ptr<llm::model_client> client(const fake_openai_server& s,
                                              llm::api_kind api = llm::api_kind::chat)
    {
        llm::openai_client_options o;
        o.api = api;
        o.base_url = s.base_url();
        o.model = "fake-model";
        o.retry.base_delay = 5ms;
        o.max_concurrent_requests = 8;
        return std::make_shared<llm::openai_client>(ioc.get_executor(), o);
    }

    std::unique_ptr<llm_strategy> make(std::shared_ptr<llm::model_client> c,
                                       const std::string& kind = "refine")
    {
        llm_strategy_options o;
        o.kind = kind;
        o.seed = 42;
        o.stream = true;
        return make_llm_strategy_of_kind(std::move(c), o, sgemm(), nullptr);
    }

    std::optional<proposal> propose(llm_strategy& s, proposal_context ctx)
    {
        return run_coro(ioc, s.propose(std::move(ctx)), 60s);
    }
};

bool contains(const std::string& s, const std::string& n)
{
    return s.find(n) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_features_suite)

BOOST_AUTO_TEST_CASE(features_of_the_real_sgemm_kernels)
{
    const auto naive = extract_features(bench_candidate("01-naive"), resource_usage{}, sgemm(), h200());
    BOOST_TEST(!naive.shared_memory);
    BOOST_TEST(naive.vector_width == 1);
    BOOST_TEST(!naive.register_tiling);
    BOOST_TEST(naive.block_threads > 0);

    const auto tiled = extract_features(bench_candidate("03-smem-tiled"), resource_usage{}, sgemm(), h200());
    BOOST_TEST(tiled.shared_memory);

    const auto blocked =
        extract_features(bench_candidate("05-2d-blocktiling"), resource_usage{}, sgemm(), h200());
    BOOST_TEST(blocked.register_tiling);
    BOOST_TEST(blocked.block_threads == 256);

    const auto vec = extract_features(bench_candidate("06-vectorized"), resource_usage{}, sgemm(), h200());
    BOOST_TEST(vec.vector_width == 4);

    resource_usage heavy;
    heavy.registers = 235;
    const auto warp =
        extract_features(bench_candidate("07-warptile-128x128x8-t8x16"), heavy, sgemm(), h200());
    BOOST_TEST(warp.double_buffering);
    BOOST_TEST(warp.shared_bytes > 0);  // dynamic shared memory from the launch plan with its defines
    BOOST_TEST(warp.occupancy > 0);
    BOOST_TEST(warp.occupancy <= 0.25);
    BOOST_TEST(naive.distance(warp) >= 3);
    BOOST_TEST(naive.key() != warp.key());
    BOOST_TEST(naive.to_json().at("key").as_string() == naive.key().c_str());
}

// A model answer is text anyone may shape: a 300 KB run of spaces made std::regex recurse once per
// character and overflow this process's stack (the whole search died, and --resume again). The
// features and the contract check read it like any other kernel.
BOOST_AUTO_TEST_CASE(long_runs_of_spaces_in_a_kernel_are_read_without_overflowing_the_stack)
{
    candidate c = bench_candidate("06-vectorized");
    const std::string spaces(300000, ' ');
    c.source = "float a" + spaces + "[4];\n__shared__" + spaces + "float s[2];\n" + c.source;
    const auto f = extract_features(c, resource_usage{}, sgemm(), h200());
    BOOST_TEST(f.vector_width == 4);
    BOOST_TEST(f.register_tiling);
    BOOST_TEST(f.shared_memory);
    // Under the 256 KiB a model's kernel may have; above it, that is the one problem, before any scan.
    const std::string run(120000, ' ');
    BOOST_TEST(
        llm::check_kernel_contract("extern" + run + "\"C\"" + run + "__global__ void k(float* y) {}", "k")
            .empty());
    const auto big = llm::check_kernel_contract(
        "extern" + spaces + "\"C\"" + spaces + "__global__ void k(float* y) {}", "k");
    BOOST_REQUIRE_EQUAL(big.size(), 1u);
    BOOST_TEST(big.front().find("a kernel may have at most 262144") != std::string::npos, big.front());
}

// A model's 250 KiB of unterminated "float a[" made the feature regexes superlinear, for every
// candidate of every evolve plan; they read a bounded part of the source now, and still find the
// kernel's features there.
BOOST_AUTO_TEST_CASE(features_of_a_padded_kernel_are_read)
{
    candidate c = bench_candidate("06-vectorized");
    std::string pad;
    while (pad.size() < 250000)
        pad += "\nfloat a[";
    c.source += "\n#if 0" + pad + "\n#endif\n";
    const auto f = extract_features(c, resource_usage{}, sgemm(), h200());
    BOOST_TEST(f.vector_width == 4);
    BOOST_TEST(f.shared_memory);
}

// Repeated declarations that never end made the scan quadratic on the event loop (400 KB took
// 5.7 s, 1.5 MB the whole wall-clock budget); it now reads the source about once. (Its cost is
// measured by no test: this one checks that such a source is read, and stays under CTest's limit.)
BOOST_AUTO_TEST_CASE(unterminated_declarations_are_read)
{
    std::string source = "extern \"C\" __global__ void k(float* y) { y[0] = 1; }\n";
    for (int i = 0; i < 10000; ++i)
        source += "__global__ extern \"C\" { ";
    BOOST_REQUIRE(source.size() < llm::max_kernel_source_bytes);
    BOOST_TEST(llm::check_kernel_contract(source, "k").empty());
}

BOOST_AUTO_TEST_CASE(occupancy_estimates)
{
    // 256 threads, 32 registers, no shared memory: 8 blocks -> full occupancy.
    BOOST_TEST(estimate_occupancy(256, 32, 0, h200()) == 1.0);
    // 128 registers per thread, 256 threads: 65536 / (128*256) = 2 blocks -> 512 / 2048.
    BOOST_TEST(estimate_occupancy(256, 128, 0, h200()) == 0.25);
    // 100 KB shared per block: 2 blocks of 128 threads.
    BOOST_TEST(estimate_occupancy(128, 32, 100 * 1024, h200()) == 0.125);
    BOOST_TEST(estimate_occupancy(0, 32, 0, h200()) == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(strategy_plans_suite, strategy_fixture)

BOOST_AUTO_TEST_CASE(refine_follows_the_branch_line)
{
    fake_openai_server server;
    auto s = make(client(server), "refine");
    std::mt19937_64 rng(1);
    BOOST_TEST((s->plan(context(1, 1), rng).mode == llm::proposal_mode::start));
    for (auto c : {evaluated("c0001", 0, "03-smem-tiled", 900),
                   evaluated("c0002", 1, "02-coalesced", 2000),
                   evaluated("c0003", 1, "05-2d-blocktiling", 400),
                   evaluated("c0004", 1, "01-naive", 0)})
        s->observe(c);
    const auto p = s->plan(context(1, 2), rng);
    BOOST_TEST((p.mode == llm::proposal_mode::improve));
    BOOST_TEST(p.parent->id == "c0003");  // the branch's own best, not the global one
    BOOST_TEST(s->plan(context(0, 2), rng).parent->id == "c0001");
    BOOST_TEST((s->plan(context(2, 2), rng).mode == llm::proposal_mode::start));
    server.stop();
}

BOOST_AUTO_TEST_CASE(beam_starts_branches_from_the_best_distinct)
{
    fake_openai_server server;
    auto s = make(client(server), "beam");
    auto dup = evaluated("c0004", 3, "05-2d-blocktiling", 401);  // same kernel as c0003: not distinct
    for (auto c : {evaluated("c0001", 0, "03-smem-tiled", 900),
                   evaluated("c0002", 1, "02-coalesced", 2000),
                   evaluated("c0003", 1, "05-2d-blocktiling", 400),
                   dup})
        s->observe(c);
    std::mt19937_64 rng(1);
    BOOST_TEST(s->plan(context(0, 2), rng).parent->id == "c0003");
    BOOST_TEST(s->plan(context(1, 2), rng).parent->id == "c0001");
    BOOST_TEST(s->plan(context(2, 2), rng).parent->id == "c0002");
    BOOST_TEST(s->plan(context(3, 2), rng).parent->id == "c0003");  // wraps around
    server.stop();
}

BOOST_AUTO_TEST_CASE(choices_do_not_depend_on_the_order_evaluations_finish)
{
    // Branches finish in a different order from run to run; a replay must ask the same questions,
    // so the strategies see the history in proposal (id) order whatever order it arrives in.
    fake_openai_server server;
    llm_strategy_options o;
    o.kind = "evolve";
    o.seed = 9;
    const std::vector<evaluated_candidate> cands{evaluated("c0001", 0, "03-smem-tiled", 500),
                                                 evaluated("c0002", 1, "02-coalesced", 500),
                                                 evaluated("c0003", 2, "05-2d-blocktiling", 500),
                                                 evaluated("c0010", 3, "01-naive", 500)};
    const auto plans = [&](const std::vector<int>& order)
    {
        auto s = make_llm_strategy_of_kind(client(server), o, sgemm(), nullptr);
        for (int i : order)
            s->observe(cands[static_cast<std::size_t>(i)]);
        std::vector<std::string> ids;
        for (const auto& h : s->history())
            ids.push_back(h.id);
        BOOST_TEST(ids == (std::vector<std::string>{"c0001", "c0002", "c0003", "c0010"}),
                   boost::test_tools::per_element());
        std::string picks;
        for (int branch = 0; branch < 4; ++branch)
        {
            std::mt19937_64 rng(42 + branch);
            const auto p = s->plan(context(branch, 2), rng);
            picks += (p.parent ? p.parent->id : std::string("-")) + "/" +
                     (p.second_parent ? p.second_parent->id : std::string("-")) + " ";
        }
        return picks;
    };
    const std::string in_order = plans({0, 1, 2, 3});
    BOOST_TEST(plans({3, 1, 0, 2}) == in_order);
    BOOST_TEST(plans({2, 3, 0, 1}) == in_order);
    server.stop();
}

BOOST_AUTO_TEST_CASE(prompts_are_byte_identical_whatever_the_arrival_order)
{
    // Iteration 1 of four branches with ties in score (the fake worker times every kernel alike)
    // and two failures, plus two candidates of iteration 2 that finished early (their branches were
    // faster). Every prompt of iteration 2 (refine, beam, evolve; every branch) must come out byte
    // for byte the same whatever order these results arrived in, and whatever the engine's best of
    // the moment was.
    fake_openai_server server;
    std::vector<evaluated_candidate> it1{evaluated("c0001", 0, "03-smem-tiled", 500),
                                         evaluated("c0002", 1, "10-invalid-off-by-one", 0),
                                         evaluated("c0003", 2, "05-2d-blocktiling", 500),
                                         evaluated("c0004", 3, "09-invalid-compile-error", 0)};
    it1[3].failure_kind = "compile_error";
    it1[3].failure_message = "identifier \"accum\" is undefined";
    std::vector<evaluated_candidate> early{evaluated("c0005", 0, "06-vectorized", 100),
                                           evaluated("c0007", 2, "01-naive", 0)};
    for (auto& c : early)
        c.iteration = 2;
    const auto prompts = [&](const std::vector<const evaluated_candidate*>& arrivals)
    {
        std::string out;
        for (const char* kind : {"refine", "beam", "evolve"})
        {
            llm_strategy_options o;
            o.kind = kind;
            o.seed = 7;
            o.crossover_rate = 1.0;
            auto s = make_llm_strategy_of_kind(client(server), o, sgemm(), nullptr);
            for (const auto* c : arrivals)
                s->observe(*c);
            for (int branch = 0; branch < 4; ++branch)
            {
                auto ctx = context(branch, 2);
                ctx.view.best = arrivals.back();  // whatever the engine held best when the round began
                std::mt19937_64 rng(round_seed(o.seed, branch, 2));
                const auto in = s->feedback_for(ctx, s->plan(ctx, rng));
                out += llm::render_user_prompt(in) + "\n----\n";
            }
        }
        return out;
    };
    std::vector<const evaluated_candidate*> order;
    for (const auto& c : it1)
        order.push_back(&c);
    const std::string expected = prompts(order);
    BOOST_TEST(contains(expected, "mode=crossover"));  // the evolve rounds do combine parents
    BOOST_TEST(!contains(expected, "c0005"));          // iteration 2 is not visible to iteration 2
    BOOST_TEST(!contains(expected, "c0007"));
    std::sort(order.begin(), order.end());
    int orders = 0;
    do
    {
        // Each order of iteration 1, with the early iteration-2 results first, in the middle or last.
        for (int where = 0; where < 3; ++where)
        {
            auto arrivals = order;
            const auto at = where == 0   ? arrivals.begin()
                            : where == 1 ? arrivals.begin() + 2
                                         : arrivals.end();
            arrivals.insert(at, {&early[1], &early[0]});
            BOOST_TEST(prompts(arrivals) == expected);
            ++orders;
        }
    } while (std::next_permutation(order.begin(), order.end()));
    BOOST_TEST(orders == 72);
    server.stop();
}

BOOST_AUTO_TEST_CASE(a_request_is_byte_identical_whatever_the_arrival_order)
{
    // The whole round, through a real client to the fake server: the request body (system prompt,
    // user prompt, tools, schema) is the same for two arrival orders of the same results.
    const std::vector<evaluated_candidate> cands{evaluated("c0001", 0, "03-smem-tiled", 500),
                                                 evaluated("c0002", 1, "02-coalesced", 500),
                                                 evaluated("c0003", 2, "10-invalid-off-by-one", 0)};
    auto early = evaluated("c0004", 0, "06-vectorized", 90);
    early.iteration = 2;
    const auto body_of = [&](const std::vector<const evaluated_candidate*>& arrivals)
    {
        fake_openai_options fo;
        fo.tool_calls = false;
        fake_openai_server server(fo);
        llm_strategy_options o;
        o.kind = "evolve";
        o.seed = 11;
        auto s = make_llm_strategy_of_kind(client(server), o, sgemm(), nullptr);
        for (const auto* c : arrivals)
            s->observe(*c);
        auto ctx = context(1, 2, 3);
        ctx.view.best = arrivals.front();
        BOOST_REQUIRE(propose(*s, ctx));
        const auto body = server.requests().at(0).body;
        server.stop();
        return body;
    };
    const auto a = body_of({&cands[0], &cands[1], &cands[2]});
    const auto b = body_of({&early, &cands[2], &cands[1], &cands[0]});
    BOOST_TEST(a == b);
    BOOST_TEST(contains(a, "c0001"));
}

BOOST_AUTO_TEST_CASE(evolve_islands_crossover_and_diversity)
{
    fake_openai_server server;
    llm_strategy_options o;
    o.kind = "evolve";
    o.seed = 3;
    o.crossover_rate = 1.0;  // always cross over when a mate exists
    o.migration_interval = 3;
    auto s = make_llm_strategy_of_kind(client(server), o, sgemm(), nullptr);
    auto* evo = dynamic_cast<evolve_strategy*>(s.get());
    BOOST_REQUIRE(evo);
    BOOST_TEST(evo->islands(4) == 2);
    BOOST_TEST(evo->island_of(3, 4) == 1);
    BOOST_TEST(evo->islands(1) == 1);

    std::mt19937_64 rng(round_seed(3, 0, 1));
    auto p = s->plan(context(0, 1), rng);
    BOOST_TEST((p.mode == llm::proposal_mode::start));
    BOOST_TEST(contains(p.hint, "no valid candidate so far does this"));

    for (auto c : {evaluated("c0001", 0, "01-naive", 3000),
                   evaluated("c0002", 2, "06-vectorized", 500),
                   evaluated("c0003", 1, "03-smem-tiled", 1500),
                   evaluated("c0004", 3, "07-warptile-128x128x8-t8x16", 300)})
        s->observe(c);
    // Island 0 holds branches 0 and 2: parents come from c0001 and c0002; crossover pairs the most
    // different ones.
    std::mt19937_64 rng2(round_seed(3, 0, 2));
    p = s->plan(context(0, 2), rng2);
    BOOST_TEST((p.mode == llm::proposal_mode::crossover));
    BOOST_REQUIRE(p.parent && p.second_parent);
    const std::set<std::string> island0{"c0001", "c0002"};
    BOOST_TEST(island0.count(p.parent->id) == 1u);
    BOOST_TEST(island0.count(p.second_parent->id) == 1u);
    BOOST_TEST(p.parent->id != p.second_parent->id);
    // Migration iteration: the mate comes from the other island.
    std::mt19937_64 rng3(round_seed(3, 0, 3));
    p = s->plan(context(0, 3), rng3);
    BOOST_REQUIRE(p.second_parent);
    BOOST_TEST((std::set<std::string>{"c0003", "c0004"}.count(p.second_parent->id) == 1u));
    // Deterministic for a (seed, branch, iteration).
    std::mt19937_64 a(round_seed(3, 2, 5)), b(round_seed(3, 2, 5));
    BOOST_TEST(s->plan(context(2, 5), a).parent->id == s->plan(context(2, 5), b).parent->id);
    BOOST_TEST(round_seed(1, 0, 1) != round_seed(1, 1, 0));
    server.stop();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(strategy_rounds_suite, strategy_fixture)

BOOST_AUTO_TEST_CASE(a_round_with_tools_records_and_usage)
{
    fake_openai_server server;
    auto s = make(client(server, llm::api_kind::responses));
    history.push_back(evaluated("c0001", 0, "03-smem-tiled", 900));
    s->observe(history.back());
    auto ctx = context(0, 2);
    ctx.view.best = &history.back();
    auto p = propose(*s, ctx);
    BOOST_REQUIRE(p);
    BOOST_TEST(p->cand.entry == "sgemm");
    BOOST_TEST(!p->cand.source.empty());
    BOOST_TEST(*p->parent == "c0001");
    BOOST_TEST(p->meta.at("strategy") == "refine");
    BOOST_TEST(p->meta.at("mode") == "improve");
    BOOST_TEST(p->meta.at("requests") == 2);    // the tool round, then the answer
    BOOST_TEST(p->meta.at("tool_calls") == 2);  // compile + history
    BOOST_TEST(services.compiles == 1);         // the compile tool went through the services
    BOOST_TEST(services.usage_branches == (std::vector<int>{0, 0}));
    const auto& recs = p->meta.at("llm_records").as_array();
    BOOST_REQUIRE_EQUAL(recs.size(), 2u);
    const auto first = read_json_file(services.dir / std::string(recs[0].as_string())).as_object();
    BOOST_TEST(first.at("purpose") == "improve");
    const auto& results = first.at("tool_results").as_array();
    BOOST_REQUIRE_EQUAL(results.size(), 2u);
    BOOST_TEST(contains(std::string(results[0].at("output").as_string()), "\"registers\":72"));
    BOOST_TEST(contains(std::string(results[1].at("output").as_string()), "\"id\":\"c0001\""));
    BOOST_TEST(fs::exists(services.dir / "usage.json"));
    // The prompt carried the feedback.
    const auto body = server.requests()[0].body;
    BOOST_TEST(contains(body, "## Current best"));
    BOOST_TEST(contains(body, "Device code only"));
    server.stop();
}

BOOST_AUTO_TEST_CASE(a_broken_answer_gets_a_follow_up)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fo.script = {"schema-break", "05-2d-blocktiling"};
    fake_openai_server server(fo);
    auto s = make(client(server));
    auto p = propose(*s, context(1, 1));
    BOOST_REQUIRE(p);
    BOOST_TEST(p->meta.at("answer_repairs") == 1);
    BOOST_TEST(p->rationale.find("Register-block") == 0u);
    BOOST_TEST(server.task_counts().at("answer_followup") == 1);
    const auto followup = server.requests()[1].body;
    BOOST_TEST(contains(followup, "Your answer could not be used"));
    BOOST_TEST(contains(followup, "kernel_source: must be a string, got a number"));
    BOOST_TEST(contains(followup, "launch: missing"));
    server.stop();
}

BOOST_AUTO_TEST_CASE(repair_requests_name_the_failure)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fake_openai_server server(fo);
    auto s = make(client(server), "beam");
    history.push_back(evaluated("c0001", 2, "03-smem-tiled", 900));
    history.push_back(evaluated("c0002", 2, "10-invalid-off-by-one", 0));
    history.back().parent = "c0001";
    for (const auto& c : history)
        s->observe(c);
    auto ctx = context(2, 2);
    ctx.repair_of = &history.back();
    auto p = propose(*s, ctx);
    BOOST_REQUIRE(p);
    BOOST_TEST(*p->parent == "c0002");
    BOOST_TEST(p->meta.at("mode") == "repair");
    const auto body = server.requests()[0].body;
    BOOST_TEST(contains(body, "mode=repair"));
    BOOST_TEST(contains(body, "12 of 2257 elements differ"));
    BOOST_TEST(fs::exists(services.dir / "0001-b2-i2-repair.json"));
    server.stop();
}

BOOST_AUTO_TEST_CASE(branches_run_their_requests_concurrently)
{
    fake_openai_options fo;
    fo.latency = 400ms;
    fake_openai_server server(fo);
    auto s = make(client(server), "evolve");
    constexpr int branches = 4;
    auto all = [&]() -> asio::awaitable<int>
    {
        auto ex = co_await asio::this_coro::executor;
        using op = decltype(asio::co_spawn(ex, s->propose(context(0, 1, branches)), asio::deferred));
        std::vector<op> ops;
        for (int b = 0; b < branches; ++b)
            ops.push_back(asio::co_spawn(ex, s->propose(context(b, 1, branches)), asio::deferred));
        auto [order, errors, results] =
            co_await asio::experimental::make_parallel_group(std::move(ops))
                .async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
        int n = 0;
        for (std::size_t i = 0; i < results.size(); ++i)
            n += (!errors[i] && results[i]) ? 1 : 0;
        co_return n;
    };
    const auto t0 = std::chrono::steady_clock::now();
    BOOST_TEST(run_coro(ioc, all(), 60s) == branches);
    const auto elapsed = std::chrono::steady_clock::now() - t0;
    BOOST_TEST(server.max_concurrent_requests() == static_cast<std::size_t>(branches));
    // Two rounds of 400 ms each (tools, answer), not 2 x 4.
    BOOST_TEST((elapsed < 2000ms));
    // The records say the same: every first request was sent before any answer arrived.
    std::vector<std::string> sends, completes;
    for (const auto& r : llm::read_records(services.dir))
        if (r.purpose == "start")
        {
            const auto rec = read_json_file(services.dir / r.file).as_object();
            sends.emplace_back(rec.at("timestamps").at("send").as_string());
            completes.emplace_back(rec.at("timestamps").at("complete").as_string());
        }
    BOOST_REQUIRE_EQUAL(sends.size(), 2u * branches);
    std::sort(sends.begin(), sends.end());
    std::sort(completes.begin(), completes.end());
    BOOST_TEST(sends[branches - 1] < completes[0]);
    server.stop();
}

BOOST_AUTO_TEST_CASE(fatal_errors_are_remembered)
{
    fake_openai_options fo;
    fo.api_key = "sk-required-key-1234567";
    fake_openai_server server(fo);
    auto s = make(client(server));
    BOOST_CHECK_THROW(propose(*s, context(0, 1)), llm::fatal_provider_error);
    BOOST_REQUIRE(s->fatal_error());
    BOOST_TEST(contains(*s->fatal_error(), "the API key was rejected"));
    const auto n = server.request_count();
    BOOST_CHECK_THROW(propose(*s, context(1, 1)), llm::fatal_provider_error);
    BOOST_TEST(server.request_count() == n);  // no further request
    server.stop();
}

BOOST_AUTO_TEST_CASE(exhausted_budget_and_replay_end_the_branch)
{
    fake_openai_options fo;
    fo.tool_calls = false;
    fo.script = {"schema-break"};
    fake_openai_server server(fo);
    services.token_limit = 10;  // the first answer exhausts it and is unusable
    auto s = make(client(server));
    BOOST_TEST(!propose(*s, context(0, 1)).has_value());
    BOOST_TEST(server.request_count() == 1u);
    server.stop();

    // Replay of the records just written: branch 0 had one (unusable) answer; another branch none.
    auto replay = std::make_shared<llm::replay_client>(services.dir);
    services.token_limit.reset();
    temp_dir other;
    services.dir = other.path();
    auto r = make(replay);
    BOOST_TEST(!propose(*r, context(3, 1)).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(inference_suite, strategy_fixture)

BOOST_AUTO_TEST_CASE(inference_with_checks_and_a_repair_round)
{
    fake_openai_server server;
    auto c = client(server);
    llm::record_writer records(tmp.path() / "run" / "llm", nullptr);
    c->set_observer(records.observer());
    int compiles = 0, loads = 0;
    llm::compile_function compile = [&](compile_request r) -> asio::awaitable<compile_output>
    {
        ++compiles;
        compile_output o;
        o.compiled = r.source.find("__global__") != std::string::npos;
        co_return o;
    };
    llm::load_function load = [&](const workload& w) -> asio::awaitable<json::object>
    {
        ++loads;
        json::array cases;
        for (const auto& wc : w.cases)
            cases.push_back(json::object{{"name", wc.name},
                                         {"reference",
                                          json::object{{"all_zero", json::object{{"C", loads == 1}}},
                                                       {"nonfinite", json::object{{"C", 0}}},
                                                       {"depends_on_inputs", true}}}});
        co_return json::object{{"cases", std::move(cases)}};
    };
    llm::inference_request req{
        "Single-precision GEMM with rectangular matrices.", json::object{}, tmp.path()};
    int reported = 0;
    llm::usage_reporter report = [&](const token_usage&) { return ++reported > 0; };
    auto result = run_coro(
        ioc, llm::infer_workload(*c, req, compile, load, report, &records, llm::inference_settings{}), 60s);
    BOOST_TEST(result.attempts == 2);  // the first reference "wrote only zeros"
    BOOST_TEST(compiles == 4);         // reference + initial, twice
    BOOST_TEST(loads == 2);
    BOOST_TEST(reported == 2);
    BOOST_TEST(result.inferred.size() == 4u);
    BOOST_TEST(result.checks.size() == 2u);
    const auto w = workload::from_json(result.workload_json, tmp.path(), "inferred");
    BOOST_TEST(w.sig.entry == "sgemm");
    BOOST_TEST(w.cases.size() == 3u);
    BOOST_TEST(w.performance_case_count() == 1u);
    BOOST_TEST(w.initial.has_value());
    BOOST_TEST(w.description == "Single-precision GEMM with rectangular matrices.");
    // The second request told the model what the check found.
    const auto second = server.requests()[1].body;
    BOOST_TEST(contains(second, "wrote only zeros to 'C'"));
    BOOST_TEST(fs::exists(tmp.path() / "run" / "llm" / "0001-inference-infer.json"));
    BOOST_TEST(fs::exists(tmp.path() / "run" / "llm" / "0002-inference-infer-retry.json"));

    // Given parts are kept, and nothing is asked when nothing is missing.
    auto full = result.workload_json;
    llm::inference_request nothing{"x", full, tmp.path()};
    const auto before = server.request_count();
    auto same = run_coro(
        ioc, llm::infer_workload(*c, nothing, compile, load, report, &records, llm::inference_settings{}));
    BOOST_TEST(same.inferred.empty());
    BOOST_TEST(server.request_count() == before);
    server.stop();
}

BOOST_AUTO_TEST_CASE(inference_gives_up_with_the_reason)
{
    fake_openai_server server;
    auto c = client(server);
    llm::compile_function compile = [](compile_request) -> asio::awaitable<compile_output>
    {
        compile_output o;
        o.compiled = false;
        o.error = "identifier \"x\" is undefined";
        co_return o;
    };
    llm::inference_settings settings;
    settings.max_attempts = 2;
    llm::inference_request req{"GEMM", json::object{}, tmp.path()};
    try
    {
        run_coro(ioc, llm::infer_workload(*c, req, compile, {}, {}, nullptr, settings), 60s);
        BOOST_ERROR("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(
            contains(e.what(), "no usable workload could be inferred from --description in 2 attempts"),
            e.what());
        BOOST_TEST(contains(e.what(), "the reference does not compile: identifier \"x\" is undefined"),
                   e.what());
    }
    server.stop();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(llm_options_suite)

BOOST_AUTO_TEST_CASE(flag_checks_name_the_problem)
{
    auto fails =
        [](const std::vector<std::string>& args, const std::string& provider, const std::string& needle)
    {
        CLI::App app;
        llm_options o;
        o.add_to(app, "Model");
        std::vector<std::string> argv = args;
        std::reverse(argv.begin(), argv.end());
        app.parse(argv);
        o.provider = provider;
        try
        {
            o.check();
            BOOST_ERROR("no error for " << needle);
        }
        catch (const user_error& e)
        {
            BOOST_TEST(contains(e.what(), needle), e.what());
        }
    };
    fails({"--model", "x"}, "scripted", "--model is an option of the model providers");
    fails({}, "openai-chat", "--provider openai-chat needs --base-url");
    fails({"--base-url", "http://127.0.0.1:8000/v1"}, "openai-chat", "needs --model");
    fails({"--reasoning-effort", "ultra"}, "openai", "--reasoning-effort ultra");
    fails({"--store", "no"}, "openai", "--store no: expected true or false");
    fails({"--stream-idle-timeout-s", "0"}, "openai", "--stream-idle-timeout-s must be greater than 0");
    fails({"--structured-output", "xml"}, "openai", "--structured-output xml");
    fails({}, "replay", "--provider replay needs --replay-from RUN");
    fails({"--replay-from", "results/run-001"}, "openai", "--replay-from is an option of --provider replay");

    // --strategy belongs to the optimize command (autotune takes it too); the value is checked here.
    llm_options greedy;
    greedy.provider = "openai";
    greedy.strategy = "greedy";
    try
    {
        greedy.check();
        BOOST_ERROR("no error for --strategy greedy");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(contains(e.what(), "--strategy greedy: unknown strategy (refine, beam, evolve)"),
                   e.what());
    }

    llm_options ok;
    ok.provider = "openai";
    ok.check();
    BOOST_TEST(ok.effective_model() == "gpt-5-mini");
    BOOST_TEST(ok.effective_reasoning_effort() == "medium");
    ok.provider = "openai-chat";
    BOOST_TEST(ok.effective_reasoning_effort() == "");
    const auto back = llm_options::from_json(ok.to_json(), "run.json");
    BOOST_TEST(back.provider == "openai-chat");
    BOOST_TEST(back.strategy == "refine");
}

// A resumed run's model endpoint comes from run.json, which anyone may have written: a server that
// is not loopback, or a credential other than OPENAI_API_KEY, is used only when the command line
// names it again; another value on the command line is refused as well.
BOOST_AUTO_TEST_CASE(a_resumed_run_sends_the_key_only_where_the_command_line_confirms)
{
    const auto resumed =
        [](const std::string& base_url, const std::string& key_env, const std::string& provider)
    {
        llm_options stored;
        stored.provider = provider;
        stored.base_url = base_url;
        stored.api_key_env = key_env;
        return llm_options::from_json(stored.to_json(), "run-001/run.json");
    };
    const auto confirm = [](const llm_options& stored, std::vector<std::string> args) -> std::string
    {
        CLI::App app;
        llm_options now;
        now.add_to(app, "Model");
        std::reverse(args.begin(), args.end());
        app.parse(args);
        try
        {
            stored.confirm_resumed_endpoint(now, "run-001/run.json");
            return "";
        }
        catch (const user_error& e)
        {
            return e.what();
        }
    };
    // The user's own defaults need nothing; a loopback server is confirmed like any other (another
    // user of the machine can listen there).
    BOOST_TEST(confirm(resumed("", "OPENAI_API_KEY", "openai"), {}) == "");
    BOOST_TEST(contains(confirm(resumed("http://127.0.0.1:8000/v1", "OPENAI_API_KEY", "openai-chat"), {}),
                        "only when you give --base-url http://127.0.0.1:8000/v1 again"));
    BOOST_TEST(confirm(resumed("http://127.0.0.1:8000/v1", "OPENAI_API_KEY", "openai-chat"),
                       {"--base-url", "http://127.0.0.1:8000/v1"}) == "");

    const auto far = resumed("https://attacker.example/v1", "OPENAI_API_KEY", "openai");
    const std::string refused = confirm(far, {});
    BOOST_TEST(
        contains(refused,
                 "run-001/run.json: config.llm.base_url is 'https://attacker.example/v1'; --resume sends "
                 "the API key there only when you give --base-url https://attacker.example/v1 again"),
        refused);
    BOOST_TEST(confirm(far, {"--base-url", "https://attacker.example/v1"}) == "");
    BOOST_TEST(
        contains(confirm(far, {"--base-url", "https://api.openai.com/v1"}), "cannot change it on --resume"));

    const auto other_key = resumed("", "GITHUB_TOKEN", "openai");
    BOOST_TEST(
        contains(confirm(other_key, {}),
                 "config.llm.api_key_env is 'GITHUB_TOKEN'; --resume sends the API key there only when "
                 "you give --api-key-env GITHUB_TOKEN again"));
    BOOST_TEST(confirm(other_key, {"--api-key-env", "GITHUB_TOKEN"}) == "");
    BOOST_TEST(contains(confirm(resumed("", "OPENAI_API_KEY", "openai"), {"--api-key-env", "OTHER"}),
                        "cannot change it on --resume"));

    // Providers that send no key take neither flag.
    BOOST_TEST(confirm(resumed("", "OPENAI_API_KEY", "replay"), {}) == "");
    BOOST_TEST(
        contains(confirm(resumed("", "OPENAI_API_KEY", "scripted"), {"--base-url", "http://127.0.0.1:1/v1"}),
                 "sends no key; --base-url cannot be combined with --resume"));
}

BOOST_AUTO_TEST_CASE(clients_from_options)
{
    asio::io_context ioc;
    ::unsetenv("WARPSMITH_NO_SUCH_KEY");
    temp_dir tmp;
    const auto cwd = fs::current_path();
    fs::current_path(tmp.path());  // no .env here
    llm_options o;
    o.provider = "openai";
    o.api_key_env = "WARPSMITH_NO_SUCH_KEY";
    try
    {
        make_model_client(o, ioc.get_executor());
        BOOST_ERROR("expected user_error");
    }
    catch (const user_error& e)
    {
        BOOST_TEST(contains(e.what(), "no OpenAI API key: set WARPSMITH_NO_SUCH_KEY"), e.what());
    }
    // A .env in the working directory provides it.
    std::ofstream(tmp.path() / ".env") << "WARPSMITH_NO_SUCH_KEY=sk-dotenv-key-123456789\n";
    auto b = make_model_client(o, ioc.get_executor());
    BOOST_TEST(b.client->provider() == "openai");
    BOOST_TEST(b.client->model() == "gpt-5-mini");
    BOOST_TEST(contains(b.key_source, ".env"));
    BOOST_TEST(b.redact->apply(std::string_view("x sk-dotenv-key-123456789")) == "x [REDACTED]");
    o.price_table = (tmp.path() / "missing.json").string();
    BOOST_CHECK_THROW(make_model_client(o, ioc.get_executor()), user_error);
    o.price_table.clear();

    // The server comes from the command line or the process environment, never from ./.env: a .env
    // in a downloaded directory the user works in would otherwise send the key to its server.
    ::unsetenv("OPENAI_BASE_URL");
    std::ofstream(tmp.path() / ".env", std::ios::app) << "OPENAI_BASE_URL=https://attacker.example/v1\n"
                                                      << "OPENAI_ORG_ID=org-attacker\n";
    BOOST_TEST(o.effective_base_url() == "");
    BOOST_TEST(openai_setting("OPENAI_ORG_ID") == "");
    BOOST_TEST(make_model_client(o, ioc.get_executor()).client->provider() == "openai");
    fs::current_path(cwd);
}

BOOST_AUTO_TEST_SUITE_END()
