#pragma once

// A synthetic run directory for report tests: the files a `warpsmith optimize` run leaves
// (docs/run-directory.md), written directly so that every case a report must render is present:
// valid candidates faster and slower than the reference, a mismatch, a compile error, a pending
// candidate, a best kernel whose source holds HTML special characters, a confirmation, and
// optionally no summary (an interrupted run).

#include "engine/run/journal.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace warpsmith::test
{

/// The best kernel's source: HTML and XML special characters that a report must escape.
inline const char* nasty_source()
{
    return "// FAKE: median_us=66\n"
           "// </code></pre><script>alert(\"pwned\")</script> & <b>bold</b>\n"
           "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c)\n"
           "{\n"
           "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n && i >= 0; i += gridDim.x * "
           "blockDim.x)\n"
           "        c[i] = a[i] + b[i];\n"
           "}\n";
}

struct synthetic_run_options
{
    bool summary = true;      ///< Write summary.json, best.cu and a run_finished event.
    bool tune_curve = false;  ///< Write tune_curve.json.
    int extra_valid = 0;      ///< More valid candidates (dense heatmaps).
};

class synthetic_run
{
public:
    synthetic_run(const std::filesystem::path& dir, synthetic_run_options o = {}) : dir_(dir)
    {
        namespace json = boost::json;
        std::filesystem::create_directories(dir / "workload");
        std::filesystem::create_directories(dir / "candidates");
        write(dir / "workload" / "workload.json",
              R"J({"name": "vadd", "description": "c = a + b <elementwise>",
  "signature": {"entry": "vadd", "params": [
    {"name": "n", "kind": "scalar", "type": "int32"},
    {"name": "a", "kind": "buffer", "type": "float32", "dir": "in", "count": "n"},
    {"name": "b", "kind": "buffer", "type": "float32", "dir": "in", "count": "n"},
    {"name": "c", "kind": "buffer", "type": "float32", "dir": "out", "count": "n"}]},
  "tolerance": {"rtol": 1e-6, "atol": 1e-6},
  "cases": [{"name": "odd", "role": "correctness", "values": {"n": 1001}},
            {"name": "1m", "role": "performance", "values": {"n": 1048576}},
            {"name": "4m", "role": "performance", "values": {"n": 4194304}}],
  "reference_source": "extern \"C\" __global__ void vadd(int n, const float* a, const float* b, float* c) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }",
  "launch": {"grid": ["ceil_div(n,256)"], "block": ["256"]}})J");
        write(dir / "workload" / "roofline.json", R"({"bytes": "12*n", "flops": "n"})");

        event({{"event", "run_started"},
               {"run", dir.filename().string()},
               {"resumed", false},
               {"options", json::object{}}});
        baseline("reference", 200, 200);
        baseline("initial", 160, 160);
        candidate("c0001",
                  0,
                  1,
                  nullptr,
                  "unrolled by two",
                  "// FAKE: median_us=143\nextern \"C\" __global__ void vadd() {}\n");
        candidate("c0002",
                  1,
                  1,
                  nullptr,
                  "vectorized float4 loads",
                  "// FAKE: invalid=mismatch\nextern \"C\" __global__ void vadd() {}\n");
        candidate("c0003", 2, 1, nullptr, "grid-stride loop, half the blocks", nasty_source());
        candidate("c0004", 0, 2, "c0001", "shared-memory staging", "broken(\n");
        candidate("c0005",
                  1,
                  2,
                  "c0002",
                  "one block per SM",
                  "// FAKE: median_us=250\nextern \"C\" __global__ void vadd() {}\n");
        compiled("c0001", true, 16);
        evaluated_valid("c0001", 143, 143);
        compiled("c0002", true, 8);
        evaluated_invalid("c0002", 0, "mismatch", "case odd: 37 of 1001 elements outside atol + rtol*|ref|");
        compiled("c0003", true, 10);
        evaluated_valid("c0003", 66, 70);
        compiled("c0004", false, 0);
        evaluated_invalid("c0004", -1, "compile_error", "error: expected ')' <here>");
        compiled("c0005", true, 40);
        evaluated_valid("c0005", 250, 400);
        for (int k = 0; k < o.extra_valid; ++k)
        {
            char id[16];
            std::snprintf(id, sizeof id, "c%04d", 6 + k);
            candidate(id, k % 4, 3 + k / 4, "c0003", "variant " + std::to_string(k), "// variant\n");
            compiled(id, true, 20);
            evaluated_valid(id, 80 + (k * 37) % 300, 90 + (k * 53) % 500);
        }
        candidate(next_id(o.extra_valid), 2, 9, "c0003", "still waiting for its GPU", "// pending\n");
        if (!o.summary)
            return;  // an interrupted run: no confirmation, no end
        event({{"event", "confirmation"},
               {"entries",
                json::array{json::object{{"key", "c0003"},
                                         {"eligible", true},
                                         {"score_us", 67.0},
                                         {"speedup_vs_reference", 2.9},
                                         {"search_score_us", 67.9},
                                         {"rel_diff_vs_search", -0.013},
                                         {"case_median_us", json::object{{"1m", 65.0}, {"4m", 69.0}}}},
                            json::object{{"key", "reference"},
                                         {"eligible", false},
                                         {"score_us", 200.0},
                                         {"speedup_vs_reference", 1.0},
                                         {"search_score_us", 200.0},
                                         {"rel_diff_vs_search", 0.0},
                                         {"case_median_us", json::object{{"1m", 200.0}, {"4m", 200.0}}}}}},
               {"winner", "c0003"},
               {"max_abs_rel_diff_vs_search", 0.013},
               {"mean_abs_rel_diff_vs_search", 0.0065},
               {"gpu", 0},
               {"rounds", 30}});
        event({{"event", "run_finished"},
               {"status", "finished"},
               {"reason", "max_iterations"},
               {"winner", "c0003"},
               {"exit_code", 0}});
        write(dir / "best.cu", nasty_source());
        json::object summary{
            {"run", dir.filename().string()},
            {"workload", "vadd"},
            {"status", "finished"},
            {"stop_reason", "max_iterations"},
            {"error", nullptr},
            {"best",
             json::object{{"id", "c0003"},
                          {"decided_by", "confirmation"},
                          {"score_us", 67.9},
                          {"speedup_vs_reference", 2.94},
                          {"case_median_us", json::object{{"1m", 66.0}, {"4m", 70.0}}},
                          {"confirmation",
                           json::object{{"score_us", 67.0},
                                        {"speedup_vs_reference", 2.9},
                                        {"case_median_us", json::object{{"1m", 65.0}, {"4m", 69.0}}}}}}},
            {"budgets",
             json::object{
                 {"limits", json::object{{"max_iterations", 2}}},
                 {"used", json::object{{"iterations", 2}, {"candidates", 6}, {"wall_seconds", 12.5}}}}},
            {"tokens", json::object{{"input", 0}, {"output", 0}, {"cost_usd", 0}}},
            {"wall_seconds", 12.5},
            {"gpu_busy_fraction", 0.42},
            {"gpus", json::array{json::object{{"index", 0}, {"busy_fraction", 0.42}}}},
            {"baselines",
             json::object{
                 {"cublas", json::object{{"case_median_us", json::object{{"1m", 60.0}, {"4m", 75.0}}}}}}}};
        write(dir / "summary.json", json::serialize(summary));
        json::object run{
            {"tool", "warpsmith"},
            {"version", "0.1.0"},
            {"command_line",
             json::array{"warpsmith", "optimize", "--workload", "vadd", "--candidates", "my dir"}},
            {"config",
             json::object{{"provider", json::object{{"name", "scripted"}, {"seed", 7}}},
                          {"search", json::object{{"branches", 3}, {"async", false}}}}},
            {"devices",
             json::array{json::object{{"name", "Fake GPU"},
                                      {"index", 0},
                                      {"arch", "sm_90"},
                                      {"sm_count", 132},
                                      {"clock_mhz", 1980},
                                      {"memory_clock_mhz", 2619},
                                      {"memory_bus_bits", 5120},
                                      {"driver_version", "13.0"},
                                      {"nvrtc_version", "13.0"},
                                      {"worker_version", "0.1.0"}}}},
            {"sessions",
             json::array{json::object{{"started", "2026-12-02T15:07:48.000Z"},
                                      {"ended", "2026-12-02T15:08:00.500Z"},
                                      {"status", "finished"}}}}};
        write(dir / "run.json", json::serialize(run));
        if (o.tune_curve)
            write(
                dir / "tune_curve.json",
                R"J({"strategy": "anneal", "seed": 1, "workload": "vadd", "evaluations": 5, "best_us": 67.9, "time_to_best": 3,
                      "curve": [{"n": 1, "id": "c0001", "score_us": 143, "best_us": 143},
                                {"n": 2, "id": "c0002", "score_us": null, "best_us": 143},
                                {"n": 3, "id": "c0003", "score_us": 67.9, "best_us": 67.9},
                                {"n": 4, "id": "c0004", "score_us": null, "best_us": 67.9},
                                {"n": 5, "id": "c0005", "score_us": 316, "best_us": 67.9}]})J");
    }

    const std::filesystem::path& dir() const { return dir_; }

private:
    static void write(const std::filesystem::path& p, const std::string& text)
    {
        std::ofstream(p, std::ios::binary) << text;
    }

    static std::string next_id(int extra)
    {
        char id[16];
        std::snprintf(id, sizeof id, "c%04d", 6 + extra);
        return id;
    }

    void event(boost::json::object ev)
    {
        // 100 ms apart from 15:07:48.000.
        const int ms = 48000 + seq_ * 100;
        char t[64];
        std::snprintf(
            t, sizeof t, "2026-12-02T15:%02d:%02d.%03dZ", 7 + ms / 60000, ms / 1000 % 60, ms % 1000);
        boost::json::object line{{"seq", ++seq_}, {"time", t}};
        for (auto& kv : ev)
            line[kv.key()] = kv.value();
        std::ofstream(dir_ / "journal.jsonl", std::ios::app) << boost::json::serialize(line) << "\n";
    }

    void baseline(const char* key, double m1, double m4)
    {
        namespace json = boost::json;
        event({{"event", "baseline"},
               {"key", key},
               {"gpu", 0},
               {"valid", true},
               {"failure", nullptr},
               {"score_us", std::sqrt(m1 * m4)},
               {"case_median_us", json::object{{"1m", m1}, {"4m", m4}}},
               {"busy_ms", 1.0},
               {"result",
                json::object{{"status", "valid"},
                             {"environment",
                              json::object{{"clocks",
                                            json::object{{"sm_mhz_start", 1980},
                                                         {"sm_mhz_end", 1965},
                                                         {"mem_mhz_start", 2619},
                                                         {"mem_mhz_end", 2619}}}}}}}});
    }

    void candidate(const std::string& id,
                   int branch,
                   int iteration,
                   const char* parent,
                   const std::string& rationale,
                   const std::string& source)
    {
        namespace json = boost::json;
        event({{"event", "proposed"},
               {"id", id},
               {"branch", branch},
               {"iteration", iteration},
               {"parent", parent ? json::value(parent) : json::value(nullptr)},
               {"repair_of", nullptr},
               {"rationale", rationale},
               {"candidate",
                json::object{{"source", source},
                             {"entry", "vadd"},
                             {"defines", json::object{}},
                             {"options", json::array{}},
                             {"launch",
                              json::object{{"grid", json::array{"ceil_div(n,256)", "1", "1"}},
                                           {"block", json::array{"256", "1", "1"}},
                                           {"shared_bytes", "0"}}},
                             {"overrides", json::object{}}}},
               {"meta", json::object{{"provider", "scripted"}}}});
    }

    void compiled(const std::string& id, bool ok, int registers)
    {
        namespace json = boost::json;
        event({{"event", "compiled"},
               {"id", id},
               {"compile",
                json::object{{"compiled", ok},
                             {"error", ok ? "" : "expected ')'"},
                             {"log", ""},
                             {"entries", json::array{}},
                             {"resources",
                              json::object{{"registers", registers},
                                           {"spill_stores_bytes", 0},
                                           {"spill_loads_bytes", registers > 32 ? 8 : 0},
                                           {"static_shared_bytes", 0}}},
                             {"arch", "sm_90"},
                             {"key", "k"},
                             {"cache_hit", false},
                             {"compile_ms", 2.0}}}});
    }

    void evaluated_valid(const std::string& id, double m1, double m4)
    {
        namespace json = boost::json;
        const double score = std::sqrt(m1 * m4);
        event({{"event", "evaluated"},
               {"id", id},
               {"gpu", 0},
               {"valid", true},
               {"failure", nullptr},
               {"score_us", score},
               {"speedup_vs_reference", 200.0 / score},
               {"speedup_vs_initial", 160.0 / score},
               {"case_median_us", json::object{{"1m", m1}, {"4m", m4}}},
               {"queued_ms", 0},
               {"busy_ms", 3.0},
               {"worker_restarted", false},
               {"restart_reason", ""},
               {"result",
                json::object{{"status", "valid"},
                             {"cases",
                              json::array{json::object{{"name", "1m"},
                                                       {"role", "performance"},
                                                       {"timing",
                                                        json::object{{"median_us", m1},
                                                                     {"p10_us", m1 * 0.98},
                                                                     {"p90_us", m1 * 1.03},
                                                                     {"rel_iqr", 0.012}}}}}},
                             {"environment",
                              json::object{{"clocks",
                                            json::object{{"sm_mhz_start", 1980},
                                                         {"sm_mhz_end", 1980},
                                                         {"mem_mhz_start", 2619},
                                                         {"mem_mhz_end", 2619}}}}}}}});
    }

    void evaluated_invalid(const std::string& id,
                           int gpu,
                           const std::string& kind,
                           const std::string& message)
    {
        namespace json = boost::json;
        event({{"event", "evaluated"},
               {"id", id},
               {"gpu", gpu},
               {"valid", false},
               {"failure", json::object{{"kind", kind}, {"message", message}}},
               {"score_us", nullptr},
               {"speedup_vs_reference", 0},
               {"speedup_vs_initial", 0},
               {"case_median_us", json::object{}},
               {"queued_ms", 0},
               {"busy_ms", 1.0},
               {"worker_restarted", false},
               {"restart_reason", ""},
               {"result", json::object{{"status", "invalid"}}}});
    }

    std::filesystem::path dir_;
    int seq_ = 0;
};

}  // namespace warpsmith::test
