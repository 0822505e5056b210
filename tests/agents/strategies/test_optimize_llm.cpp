// `warpsmith optimize` with the model providers, as a real process, against the fake OpenAI server
// (in this test process) and the fake GPU worker, compiling in process with NVRTC:
//  * --description: the workload is inferred and checked, saved to workload/, then B branches
//    search with real sgemm kernels; llm/ records, usage in the journal and summary, B requests
//    in flight at once;
//  * the API key appears in no file and no output;
//  * --provider replay re-serves the run at zero cost, the same kernels per branch, no request;
//  * every fatal error and bad flag: one line on stderr naming the cause, exit 2, and the run
//    directory keeps what was done.
//  * two live runs whose answers arrive in different orders send the same requests and number the
//    candidates alike;
//  * --async 16 against a slow fake server: 16 requests in flight, candidates evaluated as their
//    answers come (not per batch);
//  * --use-nsight (fake_ncu): the model calls the profile tool, reads the summary in its next
//    request, and a replay answers it from the recorded profiles/ with the same requests;
// Skipped with a message when the warpsmith or fake_worker binary is missing.

#include "engine/run/journal.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/agents/support/fake_openai_server.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <fstream>
#include <functional>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace
{

const std::string secret = "sk-proj-SECRET-e2e-7c1d9a0b3f";
const std::string description = "Single-precision GEMM with rectangular matrices.";

bool binaries_present()
{
    for (const char* b : {"warpsmith", "fake_worker"})
        if (!fs::exists(bin_dir() / b))
        {
            BOOST_TEST_MESSAGE("skipped: " << (bin_dir() / b) << " is not built");
            return false;
        }
    return true;
}

struct result
{
    int code = -1;
    std::string out, err;
};

/// Runs warpsmith optimize in `cwd` with the fake worker and in-process NVRTC, waits (bounded).
result optimize(const fs::path& cwd, std::vector<std::string> extra, std::chrono::seconds limit = 240s)
{
    std::vector<std::string> args{(bin_dir() / "warpsmith").string(),
                                  "optimize",
                                  "--worker",
                                  (bin_dir() / "fake_worker").string(),
                                  "--gpus",
                                  "0",
                                  "--in-process-compile",
                                  "--confirm-top",
                                  "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto out = cwd / "stdout.txt", err = cwd / "stderr.txt";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> full{"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.string()};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : full)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    BOOST_REQUIRE(posix_spawn(&pid, "/bin/sh", &fa, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    result r;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (true)
    {
        if (::waitpid(pid, &status, WNOHANG) == pid)
        {
            r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (std::chrono::steady_clock::now() > deadline)
        {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(20ms);
    }
    r.out = read_text_file(out);
    r.err = read_text_file(err);
    return r;
}

bool contains(const std::string& s, const std::string& n)
{
    return s.find(n) != std::string::npos;
}

int count_events(const fs::path& run, const std::string& type)
{
    int n = 0;
    for (const auto& e : read_journal(run / "journal.jsonl").events)
        n += e.at("event").as_string() == type ? 1 : 0;
    return n;
}

/// Kernel sources per branch, in proposal order.
std::map<int, std::vector<std::string>> kernels_by_branch(const fs::path& run)
{
    std::map<int, std::vector<std::pair<std::string, std::string>>> tmp;
    for (const auto& e : fs::directory_iterator(run / "candidates"))
    {
        const auto cj = read_json_file(e.path() / "candidate.json").as_object();
        const int b = static_cast<int>(cj.at("branch").as_int64());
        tmp[b].emplace_back(e.path().filename().string(), read_text_file(e.path() / "kernel.cu"));
    }
    std::map<int, std::vector<std::string>> out;
    for (auto& [b, v] : tmp)
    {
        std::sort(v.begin(), v.end());
        for (auto& [id, src] : v)
            out[b].push_back(src);
    }
    return out;
}

std::map<std::string, std::string> kernels_by_id(const fs::path& run)
{
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(run / "candidates"))
        out[e.path().filename().string()] = read_text_file(e.path() / "kernel.cu");
    return out;
}

void check_no_secret(const fs::path& dir, const result& r)
{
    BOOST_TEST(!contains(r.out, "SECRET"));
    BOOST_TEST(!contains(r.err, "SECRET"));
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            BOOST_TEST(!contains(read_text_file(e.path()), "SECRET"), e.path());
}

/// One line, exit code 2, naming `needle`.
void check_one_line(const result& r, const std::string& needle)
{
    BOOST_TEST(r.code == 2, r.err);
    BOOST_TEST(contains(r.err, needle), r.err);
    // The message is one line starting with "warpsmith: " (progress lines may precede it).
    const auto pos = r.err.find("warpsmith: ");
    BOOST_REQUIRE(pos != std::string::npos);
    BOOST_TEST(r.err.find('\n', pos) == r.err.size() - 1, r.err);
    BOOST_TEST(!contains(r.err, "terminate called"));
}

std::uint16_t closed_port()
{
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

struct e2e_fixture
{
    temp_dir tmp{"warpsmith-llm-e2e"};
    e2e_fixture()
    {
        ::setenv("WARPSMITH_CACHE_DIR", (shared_cache().path()).c_str(), 1);
        ::unsetenv("OPENAI_API_KEY");
        ::setenv("WARPSMITH_SGEMM_DIR", (source_dir() / "bench" / "workloads" / "sgemm").c_str(), 1);
    }
    ~e2e_fixture() { ::unsetenv("OPENAI_API_KEY"); }
    static temp_dir& shared_cache()
    {
        static temp_dir cache("warpsmith-llm-e2e-cache");
        return cache;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(optimize_llm_suite, e2e_fixture)

BOOST_AUTO_TEST_CASE(description_to_search_with_branches_in_parallel_then_replay)
{
    if (!binaries_present())
        return;
    fake_openai_options fo;
    fo.latency = 300ms;
    fake_openai_server server(fo);
    auto r = optimize(tmp.path(),
                      {"--description",
                       description,
                       "--provider",
                       "openai-chat",
                       "--model",
                       "fake-coder",
                       "--base-url",
                       server.base_url(),
                       "--strategy",
                       "evolve",
                       "--branches",
                       "3",
                       "--max-iterations",
                       "2",
                       "--seed",
                       "5"});
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    const fs::path run = tmp.path() / "results" / "run-001";
    // The inferred workload is saved with the run and was checked.
    const auto inf = read_json_file(run / "workload" / "inference.json").as_object();
    BOOST_TEST(inf.at("inferred").as_array().size() == 4u);
    BOOST_TEST(inf.at("checks").at(0).at("reference_run") == true);
    const auto w = workload::load(run / "workload" / "workload.json");
    BOOST_TEST(w.description == description);
    BOOST_TEST(w.cases.size() == 3u);
    BOOST_TEST(fs::exists(run / "workload" / "reference.cu"));
    BOOST_TEST(fs::exists(run / "llm" / "0001-inference-infer.json"));
    // The search: real kernels from the model, one of which does not compile.
    BOOST_TEST(count_events(run, "proposed") >= 6);
    BOOST_TEST(count_events(run, "usage") >= 6);
    int compile_errors = 0, with_records = 0;
    for (const auto& e : fs::directory_iterator(run / "candidates"))
    {
        const auto cj = read_json_file(e.path() / "candidate.json").as_object();
        const auto res = read_json_file(e.path() / "result.json");
        if (res.as_object().contains("failure") && res.at("failure").is_object() &&
            res.at("failure").at("kind") == "compile_error")
            ++compile_errors;
        if (const auto* m = cj.if_contains("meta");
            m && m->is_object() && m->as_object().contains("llm_records"))
            ++with_records;
    }
    BOOST_TEST(compile_errors >= 1);
    BOOST_TEST(with_records >= 6);
    const auto summary = read_json_file(run / "summary.json");
    BOOST_TEST(contains(json::serialize(summary), "\"input\""));
    BOOST_TEST(server.max_concurrent_requests() >= 3u);
    // The records agree: the three first requests of iteration 1 were all sent before any answered.
    std::vector<std::string> sends, completes;
    for (const auto& e : fs::directory_iterator(run / "llm"))
    {
        const auto name = e.path().filename().string();
        if (name.find("-i1-start") == std::string::npos)
            continue;
        const auto rec = read_json_file(e.path()).as_object();
        sends.emplace_back(rec.at("timestamps").at("send").as_string());
        completes.emplace_back(rec.at("timestamps").at("complete").as_string());
    }
    BOOST_REQUIRE(sends.size() >= 3u);
    std::sort(sends.begin(), sends.end());
    std::sort(completes.begin(), completes.end());
    BOOST_TEST(sends[2] < completes[0]);
    const auto config = read_json_file(run / "run.json").at("config").as_object();
    BOOST_TEST(config.at("llm").at("strategy") == "evolve");
    BOOST_TEST(config.at("llm").at("model") == "fake-coder");

    // Replay the run: the same kernels per branch, no request to any server, cost 0.
    const auto requests = server.request_count();
    auto rr = optimize(tmp.path(),
                       {"--workload",
                        (run / "workload").string(),
                        "--provider",
                        "replay",
                        "--replay-from",
                        run.string(),
                        "--strategy",
                        "evolve",
                        "--branches",
                        "3",
                        "--max-iterations",
                        "2",
                        "--seed",
                        "5"});
    BOOST_REQUIRE_MESSAGE(rr.code == 0, rr.err);
    BOOST_TEST(server.request_count() == requests);
    const fs::path run2 = tmp.path() / "results" / "run-002";
    BOOST_TEST(kernels_by_branch(run2) == kernels_by_branch(run));
    // Answers come back in the recorded order, so the candidates get the same ids and the prompts
    // that quote those ids match the recorded ones.
    BOOST_TEST(kernels_by_id(run2) == kernels_by_id(run));
    BOOST_TEST(!contains(rr.err + rr.out, "differs from the recorded one"), rr.err);
    BOOST_TEST(!contains(rr.err + rr.out, "out of the recorded order"), rr.err);
    const auto usage2 = read_json_file(run2 / "llm" / "usage.json");
    BOOST_TEST(usage2.at("total").at("cost_usd").to_number<double>() == 0.0);
    // run.json names the recorded run it replays; --resume reads it only when --replay-from
    // names it again (a run directory can come from anyone).
    auto unreplayed = optimize(tmp.path(), {"--resume", run2.string(), "--max-iterations", "3"});
    BOOST_TEST(unreplayed.code == 2, unreplayed.err);
    BOOST_TEST(contains(unreplayed.err, "config.llm.replay_from is '"), unreplayed.err);
    BOOST_TEST(contains(unreplayed.err, "--resume uses it only when you give --replay-from"), unreplayed.err);

    // --resume rebuilds the provider and strategy from run.json and appends to llm/.
    const int proposed = count_events(run, "proposed");
    const auto records_before = std::distance(fs::directory_iterator(run / "llm"), fs::directory_iterator());
    // The loopback server run.json names is confirmed like any other (a local listener would get
    // the key): refused without --base-url, resumed with it.
    auto unconfirmed = optimize(tmp.path(), {"--resume", run.string(), "--max-iterations", "3"});
    BOOST_TEST(unconfirmed.code == 2, unconfirmed.err);
    BOOST_TEST(contains(unconfirmed.err, "only when you give --base-url " + server.base_url() + " again"),
               unconfirmed.err);
    BOOST_TEST(server.request_count() == requests);
    // --no-api-key may be added on --resume (it only sends less).
    auto res = optimize(
        tmp.path(),
        {"--resume", run.string(), "--max-iterations", "3", "--base-url", server.base_url(), "--no-api-key"});
    BOOST_REQUIRE_MESSAGE(res.code == 0, res.err);
    BOOST_TEST(count_events(run, "proposed") > proposed);
    BOOST_TEST(std::distance(fs::directory_iterator(run / "llm"), fs::directory_iterator()) > records_before);
    BOOST_TEST(server.request_count() > requests);

    // The price table run.json names is a file to read: only when --price-table names it again.
    auto priced = read_json_file(run / "run.json");
    auto& recorded_llm = priced.as_object()["config"].as_object()["llm"].as_object();
    recorded_llm["price_table"] = (tmp.path() / "victim.json").string();
    write_json_file(run / "run.json", priced);
    auto unpriced = optimize(
        tmp.path(), {"--resume", run.string(), "--max-iterations", "4", "--base-url", server.base_url()});
    BOOST_TEST(unpriced.code == 2, unpriced.err);
    BOOST_TEST(contains(unpriced.err, "config.llm.price_table is '"), unpriced.err);
    BOOST_TEST(contains(unpriced.err, "--resume uses it only when you give --price-table"), unpriced.err);
    recorded_llm["price_table"] = nullptr;
    write_json_file(run / "run.json", priced);

    // A run directory names its model server in run.json, which anyone may have written: one that
    // names another server is not resumed (nothing is sent) until --base-url names it again.
    auto info = read_json_file(run / "run.json");
    info.as_object()["config"].as_object()["llm"].as_object()["base_url"] = "https://attacker.invalid/v1";
    write_json_file(run / "run.json", info);
    const auto before_far = server.request_count();
    auto far = optimize(tmp.path(), {"--resume", run.string(), "--max-iterations", "4"});
    BOOST_TEST(far.code == 2, far.err);
    BOOST_TEST(contains(far.err,
                        "--resume sends the API key there only when you give --base-url "
                        "https://attacker.invalid/v1 again"),
               far.err);
    BOOST_TEST(server.request_count() == before_far);
    // The client is built for config.provider.name: config.llm.provider saying "replay" (a provider
    // that sends no key), or nothing, changes nothing.
    for (const json::value llm_provider : {json::value("replay"), json::value(nullptr)})
    {
        auto edited = read_json_file(run / "run.json");
        auto& llm = edited.as_object()["config"].as_object()["llm"].as_object();
        if (llm_provider.is_null())
            llm.erase("provider");
        else
            llm["provider"] = llm_provider;
        write_json_file(run / "run.json", edited);
        auto again = optimize(tmp.path(), {"--resume", run.string(), "--max-iterations", "4"});
        BOOST_TEST(again.code == 2, again.err);
        BOOST_TEST(contains(again.err, "only when you give --base-url https://attacker.invalid/v1 again"),
                   again.err);
        BOOST_TEST(server.request_count() == before_far);
    }
    server.stop();
}

/// The records of a run's search exchanges (llm/NNNN-bB-iI-....json; not the inference ones or
/// usage.json), by file name: record-number order.
std::vector<std::pair<std::string, json::object>> search_records(const fs::path& run)
{
    std::vector<std::pair<std::string, json::object>> out;
    for (const auto& e : fs::directory_iterator(run / "llm"))
    {
        const auto name = e.path().filename().string();
        if (name.find("-b") != std::string::npos)
            out.emplace_back(name, read_json_file(e.path()).as_object());
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return out;
}

/// The request bodies of the search's exchanges per branch, in the branch's order.
std::map<int, std::vector<std::string>> requests_by_branch(const fs::path& run)
{
    // Record numbers: a branch's exchanges are sequential.
    std::map<int, std::vector<std::string>> out;
    for (const auto& [name, rec] : search_records(run))
        out[static_cast<int>(rec.at("branch").as_int64())].push_back(json::serialize(rec.at("request")));
    return out;
}

/// Where two texts first differ, with some context of each (for failure messages).
std::string first_difference(const std::string& a, const std::string& b)
{
    const auto at = static_cast<std::size_t>(
        std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first - a.begin());
    const auto from = at > 200 ? at - 200 : 0;
    return "at byte " + std::to_string(at) + ":\n  first:  ..." + a.substr(from, 400) + "\n  second: ..." +
           b.substr(from, 400);
}

/// Candidate ids in the order the journal recorded their proposals (the order answers arrived).
std::vector<std::string> proposal_order(const fs::path& run)
{
    std::vector<std::string> out;
    for (const auto& e : read_journal(run / "journal.jsonl").events)
        if (e.at("event").as_string() == "proposed")
            out.emplace_back(e.at("id").as_string());
    return out;
}

/// The profile tool's answers as a run's llm/ records keep them ("tool_results" of each exchange;
/// a replay records them too), in record order.
std::vector<std::string> profile_tool_results(const fs::path& run)
{
    std::vector<std::string> out;
    for (const auto& [name, rec] : search_records(run))
        if (const auto* results = rec.if_contains("tool_results"); results && results->is_array())
            for (const auto& r : results->as_array())
                if (r.at("name") == "profile")
                    out.emplace_back(r.at("output").as_string());
    return out;
}

/// The answers to profile calls that the recorded chat requests carry back to the model
/// (messages with role "tool" answering a "profile" call).
std::vector<std::string> profile_answers_sent(const fs::path& run)
{
    std::vector<std::string> out;
    for (const auto& [name, rec] : search_records(run))
    {
        const auto* messages = rec.at("request").as_object().if_contains("messages");
        if (!messages)
            continue;
        std::set<std::string> profile_calls;
        for (const auto& m : messages->as_array())
        {
            const auto& mo = m.as_object();
            if (const auto* calls = mo.if_contains("tool_calls"); calls && calls->is_array())
                for (const auto& c : calls->as_array())
                    if (c.at("function").at("name") == "profile")
                        profile_calls.emplace(c.at("id").as_string());
            if (mo.at("role") == "tool" &&
                profile_calls.count(std::string(mo.at("tool_call_id").as_string())))
                out.emplace_back(mo.at("content").as_string());
        }
    }
    return out;
}

/// The conversation digests of a run's search exchanges, by branch, iteration and purpose (the
/// record numbers differ when one run inferred its workload and the other did not).
std::vector<std::string> request_digests(const fs::path& run)
{
    std::vector<std::string> out;
    for (const auto& [name, rec] : search_records(run))
        out.push_back(name.substr(name.find("-b")) + " " + std::string(rec.at("request_digest").as_string()));
    std::sort(out.begin(), out.end());
    return out;
}

BOOST_AUTO_TEST_CASE(a_model_that_asks_for_a_profile_reads_it_and_a_replay_sees_the_same)
{
    if (!binaries_present())
        return;
    const fs::path ncu = bin_dir() / "fake_ncu";
    BOOST_REQUIRE_MESSAGE(fs::exists(ncu), ncu << " is not built");
    // fake_ncu runs the fake worker under "ncu" and serves the sgemm capture's counters.
    ::setenv("FAKE_NCU_DATA", (source_dir() / "tests/engine/profile/data").c_str(), 1);
    ::setenv("FAKE_NCU_FIXTURE", "sgemm", 1);
    fake_openai_options fo;
    fake_openai_server server(fo);
    const std::vector<std::string> search{"--strategy",
                                          "evolve",
                                          "--branches",
                                          "2",
                                          "--max-iterations",
                                          "3",
                                          "--seed",
                                          "5",
                                          "--use-nsight",
                                          "--profile-budget",
                                          "6"};
    std::vector<std::string> live{"--description",
                                  description,
                                  "--provider",
                                  "openai-chat",
                                  "--model",
                                  "fake-coder",
                                  "--base-url",
                                  server.base_url(),
                                  "--ncu",
                                  ncu.string()};
    live.insert(live.end(), search.begin(), search.end());
    auto r = optimize(tmp.path(), live);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    const fs::path run = tmp.path() / "results" / "run-001";
    BOOST_TEST(server.task_counts()["profile_call"] >= 1);

    // The model's next request carries the profile: the counters as the tool's answer.
    const auto outputs = profile_tool_results(run);
    BOOST_TEST_REQUIRE(!outputs.empty());
    for (const auto& o : outputs)
    {
        BOOST_TEST(contains(o, "speed of light"), o);
        BOOST_TEST(contains(o, "\"id\":\"c0"), o);
    }
    const auto sent = profile_answers_sent(run);
    BOOST_TEST_REQUIRE(!sent.empty());
    for (const auto& o : sent)
        BOOST_TEST((std::find(outputs.begin(), outputs.end(), o) != outputs.end()), o);
    // The round feedback carries the best's profile too.
    bool feedback_profile = false;
    for (const auto& e : fs::directory_iterator(run / "llm"))
        feedback_profile =
            feedback_profile || contains(read_text_file(e.path()), "## Profile of the current best");
    BOOST_TEST(feedback_profile);
    const auto summary = read_json_file(run / "summary.json").as_object();
    const auto& profiles = summary.at("profiles").as_object();
    BOOST_TEST(profiles.at("taken").to_number<int>() >= 1);
    BOOST_TEST(profiles.at("failed").to_number<int>() == 0);
    for (const auto& item : profiles.at("items").as_array())
        BOOST_TEST(fs::exists(run / "profiles" / std::string(item.at("summary").as_string())));
    // report.html links them.
    BOOST_TEST(contains(read_text_file(run / "report.html"), "<section id=\"profiles\">"));

    // The replay needs no ncu: the profile tool and the round feedback answer from run-001's
    // profiles/, so every request is the recorded one and the kernels get the same ids.
    const auto requests = server.request_count();
    std::vector<std::string> replay{"--workload",
                                    (run / "workload").string(),
                                    "--provider",
                                    "replay",
                                    "--replay-from",
                                    run.string(),
                                    "--ncu",
                                    "/nonexistent/ncu"};
    replay.insert(replay.end(), search.begin(), search.end());
    auto rr = optimize(tmp.path(), replay);
    BOOST_REQUIRE_MESSAGE(rr.code == 0, rr.err);
    BOOST_TEST(server.request_count() == requests);
    const fs::path run2 = tmp.path() / "results" / "run-002";
    BOOST_TEST(!contains(rr.err + rr.out, "differs from the recorded one"), rr.err);
    BOOST_TEST(kernels_by_id(run2) == kernels_by_id(run));
    BOOST_TEST(profile_tool_results(run2) == outputs);
    BOOST_TEST(request_digests(run2) == request_digests(run));
    const auto summary2 = read_json_file(run2 / "summary.json").as_object();
    for (const auto& item : summary2.at("profiles").at("items").as_array())
        BOOST_TEST(item.at("from_recording").as_bool());
    ::unsetenv("FAKE_NCU_DATA");
    ::unsetenv("FAKE_NCU_FIXTURE");
    server.stop();
}

BOOST_AUTO_TEST_CASE(two_live_runs_with_the_same_answers_send_the_same_prompts)
{
    // A model that answers each question the same way (answers chosen by the round, not by the
    // order requests arrive). In the first run branch 2 answers first, in the second branch 0:
    // every request of every branch must still be byte for byte the same, and every candidate
    // must get the same id.
    if (!binaries_present())
        return;
    const auto live = [&](std::function<std::chrono::milliseconds(int, int)> delay)
    {
        fake_openai_options fo;
        fo.latency = 50ms;
        fo.answer_by_round = true;
        // No tool round: the answers' order is then set by the latencies alone (a compile tool
        // call runs NVRTC in process, whose time under load would blur which branch is first).
        fo.tool_calls = false;
        fo.round_latency = std::move(delay);
        fake_openai_server server(fo);
        auto r = optimize(tmp.path(),
                          {"--workload",
                           (source_dir() / "bench" / "workloads" / "sgemm").string(),
                           "--provider",
                           "openai-chat",
                           "--model",
                           "fake-coder",
                           "--base-url",
                           server.base_url(),
                           "--strategy",
                           "evolve",
                           "--branches",
                           "3",
                           "--max-iterations",
                           "3",
                           "--seed",
                           "5"});
        BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
        server.stop();
    };
    live([](int branch, int) { return std::chrono::milliseconds(1000 * (2 - branch)); });
    live([](int branch, int) { return std::chrono::milliseconds(1000 * branch); });
    const fs::path a = tmp.path() / "results" / "run-001", b = tmp.path() / "results" / "run-002";
    // The answers did arrive in different orders...
    const auto order_a = proposal_order(a), order_b = proposal_order(b);
    BOOST_TEST(order_a.size() >= 9u);
    BOOST_TEST(order_a != order_b);
    BOOST_TEST(order_a.front() == "c0003");  // branch 2 answered first
    BOOST_TEST(order_b.front() == "c0001");
    // ...and yet every request and every candidate is the same.
    const auto req_a = requests_by_branch(a), req_b = requests_by_branch(b);
    BOOST_TEST(req_a.size() == 3u);
    for (const auto& [branch, bodies] : req_a)
    {
        BOOST_TEST_CONTEXT("branch " << branch)
        {
            BOOST_REQUIRE(req_b.count(branch));
            BOOST_REQUIRE_EQUAL(bodies.size(), req_b.at(branch).size());
            for (std::size_t i = 0; i < bodies.size(); ++i)
                BOOST_TEST(bodies[i] == req_b.at(branch)[i],
                           "request " << i << ": " << first_difference(bodies[i], req_b.at(branch)[i]));
        }
    }
    BOOST_TEST(kernels_by_id(a) == kernels_by_id(b));
}

BOOST_AUTO_TEST_CASE(a_wide_search_keeps_sixteen_requests_in_flight_and_evaluates_as_answers_come)
{
    // The wide-search check of docs/performance.md on the CPU path: --async 16 against the fake
    // server with seconds of latency, the fake GPU worker timing one candidate at a time (400 ms
    // each) and NVRTC compiling in process. Asserted on counts and on the order of journal events,
    // never on wall times, so a loaded machine only makes it slower.
    if (!binaries_present())
        return;
    fake_openai_options fo;
    fo.latency = 2000ms;
    fo.tool_calls = false;  // one request per proposal (plus the follow-up of the schema break)
    fake_openai_server server(fo);
    auto r = optimize(tmp.path(),
                      {"--workload",
                       (source_dir() / "tests" / "cheats" / "workloads" / "sgemm-small").string(),
                       "--provider",
                       "openai-chat",
                       "--model",
                       "fake-coder",
                       "--base-url",
                       server.base_url(),
                       "--async",
                       "16",
                       "--max-candidates",
                       "32",
                       "--worker-arg=--evaluate-ms",
                       "--worker-arg=400"});
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    BOOST_TEST(!contains(r.err, "strategy failed"), r.err);
    // Sixteen requests were in flight at once, never more (the client's cap is the slot count).
    BOOST_TEST(server.max_concurrent_requests() == 16u);
    const fs::path run = tmp.path() / "results" / "run-001";
    const auto events = read_journal(run / "journal.jsonl").events;
    std::map<std::string, std::int64_t> round_of;
    std::size_t first_round2_proposed = events.size(), last_round1_evaluated = 0,
                first_evaluated = events.size();
    int proposed = 0, evaluated = 0;
    for (std::size_t i = 0; i < events.size(); ++i)
    {
        const auto& e = events[i];
        const auto type = e.at("event").as_string();
        if (type == "proposed")
        {
            ++proposed;
            round_of[std::string(e.at("id").as_string())] = e.at("iteration").as_int64();
            if (e.at("iteration").as_int64() >= 2)
                first_round2_proposed = std::min(first_round2_proposed, i);
        }
        else if (type == "evaluated")
        {
            ++evaluated;
            first_evaluated = std::min(first_evaluated, i);
            if (round_of.at(std::string(e.at("id").as_string())) == 1)
                last_round1_evaluated = i;
        }
    }
    BOOST_TEST(proposed == 32);
    BOOST_TEST(evaluated == 32);
    // Candidates are evaluated as they come, not per batch: a slot whose first candidate was timed
    // asked again, and its second answer was back and recorded, while first-round candidates of
    // other slots still waited for the GPU.
    BOOST_TEST(first_round2_proposed < last_round1_evaluated);
    BOOST_TEST(first_evaluated < first_round2_proposed);
    server.stop();
}

BOOST_AUTO_TEST_CASE(responses_api_with_a_key_that_is_never_written)
{
    if (!binaries_present())
        return;
    fake_openai_options fo;
    fo.api_key = secret;
    fake_openai_server server(fo);
    ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
    std::ofstream(tmp.path() / "prices.json")
        << R"({"models": {"gpt-5-mini": {"input": 1000, "output": 1000}}})";
    auto r = optimize(tmp.path(),
                      {"--description",
                       description,
                       "--provider",
                       "openai",
                       "--base-url",
                       server.base_url(),
                       "--branches",
                       "2",
                       "--max-iterations",
                       "1",
                       "--price-table",
                       "prices.json",
                       "--strategy",
                       "beam"});
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    const fs::path run = tmp.path() / "results" / "run-001";
    BOOST_TEST(server.requests().front().target == "/v1/responses");
    BOOST_TEST(read_json_file(run / "llm" / "usage.json").at("total").at("cost_usd").to_number<double>() >
               0.0);
    check_no_secret(tmp.path(), r);
    server.stop();
}

BOOST_AUTO_TEST_CASE(fatal_errors_are_one_line_and_keep_the_run)
{
    if (!binaries_present())
        return;
    {
        // A rejected key during inference: the run directory holds the failed exchange.
        fake_openai_options fo;
        fo.api_key = "sk-the-server-wants-another-key";
        fake_openai_server server(fo);
        ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
        auto r =
            optimize(tmp.path(),
                     {"--description", description, "--provider", "openai", "--base-url", server.base_url()});
        check_one_line(r, "the API key was rejected by " + server.base_url() + " (HTTP 401");
        BOOST_TEST(fs::exists(tmp.path() / "results" / "run-001" / "llm" / "0001-inference-infer.json"));
        check_no_secret(tmp.path(), r);
        ::unsetenv("OPENAI_API_KEY");
        server.stop();
    }
    {
        // A rejected key during the search (the workload given): the run is finalized first.
        fake_openai_options fo;
        fo.api_key = "sk-the-server-wants-another-key";
        fake_openai_server server(fo);
        ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
        auto r = optimize(tmp.path(),
                          {"--workload",
                           (source_dir() / "bench" / "workloads" / "sgemm").string(),
                           "--provider",
                           "openai",
                           "--base-url",
                           server.base_url(),
                           "--branches",
                           "2"});
        check_one_line(r, "the run directory keeps what was done");
        BOOST_TEST(contains(r.err, "the API key was rejected"));
        BOOST_TEST(fs::exists(tmp.path() / "results" / "run-002" / "summary.json"));
        check_no_secret(tmp.path(), r);
        ::unsetenv("OPENAI_API_KEY");
        server.stop();
    }
    {
        fake_openai_options fo;
        fo.models = {"gpt-5"};
        fake_openai_server server(fo);
        auto r = optimize(tmp.path(),
                          {"--description",
                           description,
                           "--provider",
                           "openai-chat",
                           "--model",
                           "gpt-5-mini",
                           "--base-url",
                           server.base_url()});
        check_one_line(r, "model 'gpt-5-mini' is not available at " + server.base_url());
        server.stop();
    }
    {
        const auto url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1";
        auto r = optimize(
            tmp.path(),
            {"--description", description, "--provider", "openai-chat", "--model", "m", "--base-url", url});
        check_one_line(r, "cannot reach " + url + ": connection refused");
    }
    {
        fake_openai_server server({}, transport::https);
        auto r = optimize(tmp.path(),
                          {"--description",
                           description,
                           "--provider",
                           "openai-chat",
                           "--model",
                           "m",
                           "--base-url",
                           server.base_url()});
        check_one_line(r, "does not verify");
        BOOST_TEST(contains(r.err, "--insecure-local"));
        server.stop();
    }
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_before_any_run_directory)
{
    if (!binaries_present())
        return;
    struct bad
    {
        std::vector<std::string> args;
        std::string needle;
    };
    const std::vector<bad> cases = {
        {{"--description", description, "--provider", "openai"}, "no OpenAI API key: set OPENAI_API_KEY"},
        {{"--description", description, "--provider", "openai", "--api-key-env", "MY_KEY"},
         "no OpenAI API key: set MY_KEY"},
        {{"--description", description, "--provider", "openai-chat", "--model", "m"}, "needs --base-url"},
        {{"--description", description, "--provider", "openai-chat", "--base-url", "http://127.0.0.1:1/v1"},
         "needs --model"},
        {{"--description",
          description,
          "--provider",
          "openai-chat",
          "--model",
          "m",
          "--base-url",
          "https://api.example.com/v1",
          "--insecure-local"},
         "only for a loopback --base-url"},
        {{"--description", description, "--provider", "openai-chat", "--model", "m", "--base-url", "ftp://x"},
         "--base-url"},
        {{"--description", description, "--provider", "openai", "--strategy", "greedy"}, "unknown strategy"},
        {{"--workload",
          (source_dir() / "bench" / "workloads" / "sgemm").string(),
          "--candidates",
          (source_dir() / "bench" / "workloads" / "sgemm" / "candidates").string(),
          "--model",
          "m"},
         "--model is an option of the model providers"},
        {{"--description",
          description,
          "--candidates",
          (source_dir() / "bench" / "workloads" / "sgemm" / "candidates").string()},
         "requires a model provider"},
        // The quick start as typed, without a key: openai, and its one-line message.
        {{"--description", description}, "no OpenAI API key: set OPENAI_API_KEY"},
        {{"--description",
          description,
          "--provider",
          "openai",
          "--base-url",
          "http://api.example.com/v1",
          "--api-key-env",
          "WARPSMITH_TEST_PLAIN_HTTP_KEY"},
         "refusing to send the API key over plain http to 'api.example.com'"},
        {{"--description", description, "--reasoning-effort", "extreme"},
         "expected none, minimal, low, medium, high, xhigh, max"},
        {{"--description", description, "--store", "maybe"}, "--store maybe: expected true or false"},
        {{"--description", description, "--provider", "replay"}, "needs --replay-from"},
        {{"--description", description, "--provider", "replay", "--replay-from", "no-such-run"},
         "no such run directory"},
        {{"--description",
          description,
          "--provider",
          "openai-chat",
          "--model",
          "m",
          "--base-url",
          "http://127.0.0.1:1/v1",
          "--price-table",
          "missing.json"},
         "missing.json"},
    };
    ::setenv("WARPSMITH_TEST_PLAIN_HTTP_KEY", "sk-plain-http-test-00000000", 1);
    for (const auto& c : cases)
    {
        BOOST_TEST_CONTEXT(c.needle)
        {
            auto r = optimize(tmp.path(), c.args, 60s);
            check_one_line(r, c.needle);
            BOOST_TEST(!fs::exists(tmp.path() / "results" / "run-001"));
        }
    }
    ::unsetenv("WARPSMITH_TEST_PLAIN_HTTP_KEY");
}

BOOST_AUTO_TEST_CASE(quick_start_as_typed_runs_the_openai_responses_search)
{
    if (!binaries_present())
        return;
    // `warpsmith optimize --description "..."` names no provider: with a key it is the Responses
    // API with gpt-5-mini at medium effort (here against the strict fake server).
    fake_openai_options fo;
    fo.api_key = secret;
    fake_openai_server server(fo);
    ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
    auto r = optimize(
        tmp.path(), {"--description", description, "--base-url", server.base_url(), "--max-iterations", "1"});
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    const fs::path run = tmp.path() / "results" / "run-001";
    const auto config = read_json_file(run / "run.json").at("config");
    BOOST_TEST(config.at("provider").at("name") == "openai");
    BOOST_TEST(config.at("llm").at("model") == "gpt-5-mini");
    BOOST_TEST(server.task_counts()["infer"] >= 1);
    BOOST_TEST(count_events(run, "proposed") >= 1);
    for (const auto& q : server.requests())
    {
        BOOST_TEST(q.target == "/v1/responses");
        const auto body = json::parse(q.body);
        BOOST_TEST(body.at("model") == "gpt-5-mini");
        BOOST_TEST(body.at("reasoning").at("effort") == "medium");
    }
    BOOST_TEST(server.rejected().empty());
    check_no_secret(tmp.path(), r);
    ::unsetenv("OPENAI_API_KEY");
    server.stop();
}

BOOST_AUTO_TEST_CASE(nvidia_research_with_openai_searches_nvidia_docs_and_keeps_the_citations)
{
    if (!binaries_present())
        return;
    fake_openai_options fo;
    fo.tool_calls = false;
    fake_openai_server server(fo);
    ::setenv("OPENAI_API_KEY", secret.c_str(), 1);
    auto r = optimize(tmp.path(),
                      {"--workload",
                       (source_dir() / "bench" / "workloads" / "sgemm").string(),
                       "--provider",
                       "openai",
                       "--base-url",
                       server.base_url(),
                       "--nvidia-research",
                       "--max-iterations",
                       "1"});
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.err);
    BOOST_TEST(server.rejected().empty());
    const fs::path run = tmp.path() / "results" / "run-001";
    // The request offered the hosted web search, limited to NVIDIA's documentation, and bounded.
    const auto body = json::parse(server.requests().front().body);
    bool searched = false;
    for (const auto& t : body.at("tools").as_array())
        if (t.at("type") == "web_search")
        {
            searched = true;
            const auto& domains = t.at("filters").at("allowed_domains").as_array();
            BOOST_TEST(domains.size() == 2u);
            BOOST_TEST(domains[0] == "docs.nvidia.com");
        }
    BOOST_TEST(searched);
    BOOST_TEST(body.at("max_tool_calls").to_number<int>() >= 1);
    // The cited pages: in the candidate's rationale and in llm/, and the searches were billed.
    std::string rationale;
    for (const auto& e : fs::directory_iterator(run / "candidates"))
        rationale += read_text_file(e.path() / "candidate.json");
    BOOST_TEST(contains(rationale, "Sources: https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/"));
    std::string records;
    for (const auto& e : fs::directory_iterator(run / "llm"))
        records += read_text_file(e.path());
    BOOST_TEST(contains(records, "\"citations\""));
    const auto usage = read_json_file(run / "llm" / "usage.json").at("total");
    BOOST_TEST(usage.at("web_search_calls").to_number<int>() >= 1);
    BOOST_TEST(usage.at("cost_usd").to_number<double>() >= 0.01);
    ::unsetenv("OPENAI_API_KEY");
    server.stop();
}

BOOST_AUTO_TEST_SUITE_END()
