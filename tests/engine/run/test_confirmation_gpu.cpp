// The winner of a whole optimization is never a state-keeping cheat that gained something (SPEC §3
// "Trust rules"; ctest label gpu, skipped without a device). For every cheat of tests/cheats/
// cheats.json marked "state": true (memoizing, launch counting, interleave detection, shared and
// local memory residue), `warpsmith optimize --provider scripted` runs on the cheats' sgemm-small
// workload with two candidates, the honest tiled kernel (tests/cheats/valid-sgemm-tiled.cu) and the
// cheat, through the real warpsmith-worker, search and interleaved confirmation included. best.cu
// must be the honest kernel's source, or, when the cheat wins, the cheat must have been confirmed
// valid with a confirmed median at least k_twin_ratio (0.9) times the honest kernel's: a cheat that
// does the full work honestly (its state neutralized) may tie. One line per cheat says what won and
// the medians.

#include "bench/support/cheat_manifest.hpp"
#include "harness/core/json_file.hpp"
#include "tests/engine/cli/cli_test_support.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>

using namespace warpsmith;
using namespace warpsmith::cheats;
using namespace warpsmith::test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

/// DIR/NAME.cu and its sidecar NAME.json (entry, launch plan, defines, options: the scripted
/// provider's candidate format, docs/engine.md "Scripted provider").
void write_scripted(const fs::path& dir, const std::string& name, const cheat_entry& e)
{
    write_file_atomic(dir / (name + ".cu"), e.cand.source);
    json::object side = e.cand.to_json().as_object();
    side.erase("source");
    side["rationale"] = e.name;
    write_json_file(dir / (name + ".json"), side);
}

/// The confirmation entry of key in summary.json, or null.
const json::object* confirmed_entry(const json::value& summary, const std::string& key)
{
    const auto* conf = summary.at("confirmation").if_object();
    const auto* entries = conf ? conf->if_contains("entries") : nullptr;
    if (!entries || !entries->is_array())
        return nullptr;
    for (const auto& e : entries->get_array())
        if (e.at("key").as_string() == key)
            return &e.as_object();
    return nullptr;
}

double score_of(const json::object* e)
{
    return e ? e->at("score_us").to_number<double>() : 0.0;
}

/// "valid 123.4 us", "invalid <kind>" or "-" for a candidate of history.json.
std::string search_outcome(const json::value& history, const std::string& id)
{
    for (const auto& r : history.at("candidates").as_array())
        if (r.at("id").as_string() == id)
        {
            if (r.at("status").as_string() == "valid")
            {
                char buf[64];
                std::snprintf(buf, sizeof buf, "valid %.2f us", r.at("score_us").to_number<double>());
                return buf;
            }
            std::string s = "invalid " + std::string(r.at("failure").at("kind").as_string());
            if (r.as_object().contains("invalidated"))
                s += " (confirmation)";
            return s;
        }
    return "-";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(confirmation_gpu_suite)

BOOST_AUTO_TEST_CASE(no_state_keeping_cheat_wins_an_optimization)
{
    const auto all = load_cheat_manifest(source_dir() / "tests" / "cheats" / "cheats.json", source_dir());
    const cheat_entry* honest = nullptr;
    std::vector<const cheat_entry*> cheats;
    for (const auto& e : all)
    {
        if (e.file.filename() == "valid-sgemm-tiled.cu")
            honest = &e;
        else if (e.state)
            cheats.push_back(&e);
    }
    BOOST_REQUIRE_MESSAGE(honest != nullptr, "tests/cheats/cheats.json has no valid-sgemm-tiled.cu entry");
    BOOST_REQUIRE_MESSAGE(!cheats.empty(), "tests/cheats/cheats.json has no entry with \"state\": true");

    temp_dir tmp("warpsmith-confirm-gpu");
    ::setenv("WARPSMITH_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
    std::printf(
        "%-26s %-8s %-34s %-14s %-14s\n", "cheat", "winner", "cheat in search", "honest (us)", "cheat (us)");
    int n = 0;
    for (const auto* cheat : cheats)
    {
        BOOST_TEST_CONTEXT("cheat " << cheat->name)
        {
            const fs::path cands = tmp.path() / ("cands-" + std::to_string(++n));
            fs::create_directories(cands);
            // File-name order is proposal order: c0001 is the honest kernel, c0002 the cheat.
            write_scripted(cands, "01_honest", *honest);
            write_scripted(cands, "02_cheat", *cheat);
            const fs::path results = tmp.path() / ("results-" + std::to_string(n));
            const auto r = run_warpsmith({"optimize",
                                          "--workload",
                                          cheat->workload.string(),
                                          "--provider",
                                          "scripted",
                                          "--candidates",
                                          cands.string(),
                                          "--branches",
                                          "4",
                                          "--gpus",
                                          "0",
                                          "--worker",
                                          (bin_dir() / "warpsmith-worker").string(),
                                          "--results",
                                          results.string()},
                                         tmp.path());
            BOOST_TEST_REQUIRE(r.rc == 0, r.out + r.err);
            const fs::path run = results / "run-001";
            const auto summary = read_json_file(run / "summary.json");
            const auto history = read_json_file(run / "history.json");
            BOOST_TEST_REQUIRE(summary.at("best").is_object(),
                               "no winner: " + json::serialize(summary.at("best_note")));
            const std::string winner(summary.at("best").at("id").as_string());
            const auto* honest_conf = confirmed_entry(summary, "c0001");
            const auto* cheat_conf = confirmed_entry(summary, "c0002");
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.2f", score_of(cheat_conf));
            std::string cheat_us = cheat_conf ? std::string(buf) : std::string("-");
            if (const auto* inv = summary.at("confirmation").as_object().if_contains("invalidated");
                inv && inv->is_object() && inv->as_object().contains("c0002"))
                cheat_us = "invalid: " + std::string(inv->at("c0002").at("kind").as_string());
            std::printf("%-26s %-8s %-34s %-14.2f %-14s\n",
                        cheat->name.c_str(),
                        winner == "c0001" ? "honest" : "CHEAT",
                        search_outcome(history, "c0002").c_str(),
                        score_of(honest_conf),
                        cheat_us.c_str());
            std::fflush(stdout);

            const auto best_source = read_text_file(run / "best.cu");
            if (best_source == honest->cand.source)
            {
                BOOST_TEST(winner == "c0001");
                continue;
            }
            // The cheat won: only acceptable when it was confirmed valid and gained nothing.
            BOOST_TEST(winner == "c0002");
            BOOST_TEST(best_source == cheat->cand.source);
            BOOST_TEST(summary.at("best").at("decided_by").as_string() == "confirmation");
            BOOST_TEST(summary.at("best").at("confirmed").as_bool());
            BOOST_TEST_REQUIRE(honest_conf != nullptr, "the honest kernel has no confirmed timing");
            BOOST_TEST_REQUIRE(cheat_conf != nullptr, "the winning cheat has no confirmed timing");
            BOOST_TEST(score_of(cheat_conf) >= k_twin_ratio * score_of(honest_conf),
                       cheat->name << ": confirmed " << score_of(cheat_conf)
                                   << " us against the honest kernel's " << score_of(honest_conf) << " us");
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
