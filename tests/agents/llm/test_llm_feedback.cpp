// Feedback rendering, prompt templates, tool definitions and the history/log helpers, the
// exchange's next-step decision, and the inference checks (merge, case rules, the worker's
// reference report) — all plain functions.

#include "agents/llm/architecture_notes.hpp"
#include "agents/llm/exchange.hpp"
#include "agents/llm/feedback.hpp"
#include "agents/llm/inference.hpp"
#include "agents/llm/prompts.hpp"
#include "agents/llm/tools.hpp"
#include "harness/core/json_file.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace warpsmith;
using namespace warpsmith::llm;
namespace json = boost::json;

namespace
{

const workload& sgemm()
{
    static const workload w = workload::load(test::source_dir() / "bench" / "workloads" / "sgemm");
    return w;
}

evaluated_candidate valid_candidate(const std::string& id, int branch, double score)
{
    evaluated_candidate c;
    c.id = id;
    c.branch = branch;
    c.iteration = 1;
    c.cand = candidate::from_kernel(*sgemm().initial);
    c.rationale = "tiles of 32";
    c.valid = true;
    c.compile.compiled = true;
    c.compile.resources.registers = 40;
    c.score_us = score;
    c.speedup_vs_reference = 2000.0 / score;
    c.case_median_us = {{"4096x4096x4096", score}};
    return c;
}

evaluated_candidate invalid_candidate(const std::string& id,
                                      int branch,
                                      const std::string& kind,
                                      const std::string& msg)
{
    evaluated_candidate c = valid_candidate(id, branch, 0);
    c.valid = false;
    c.failure_kind = kind;
    c.failure_message = msg;
    c.case_median_us.clear();
    return c;
}

bool contains(const std::string& s, const std::string& n)
{
    return s.find(n) != std::string::npos;
}

json::object sgemm_inference_answer()
{
    return json::parse(R"~({
      "name": "sgemm rect",
      "signature": {"entry": "sgemm", "params": [
        {"name": "M", "kind": "scalar", "type": "int32", "dir": "", "count": ""},
        {"name": "N", "kind": "scalar", "type": "int32", "dir": "", "count": ""},
        {"name": "K", "kind": "scalar", "type": "int32", "dir": "", "count": ""},
        {"name": "alpha", "kind": "scalar", "type": "float32", "dir": "", "count": ""},
        {"name": "A", "kind": "buffer", "type": "float32", "dir": "in", "count": "M*K"},
        {"name": "B", "kind": "buffer", "type": "float32", "dir": "in", "count": "K*N"},
        {"name": "C", "kind": "buffer", "type": "float32", "dir": "out", "count": "M*N"}]},
      "tolerance": {"rtol": 0.001, "atol": 0.001},
      "cases": [
        {"name": "37x61x19", "role": "correctness", "values": [{"name": "M", "value": 37}, {"name": "N", "value": 61}, {"name": "K", "value": 19}, {"name": "alpha", "value": 1.5}]},
        {"name": "129x257x65", "role": "correctness", "values": [{"name": "M", "value": 129}, {"name": "N", "value": 257}, {"name": "K", "value": 65}, {"name": "alpha", "value": 1}]},
        {"name": "big", "role": "performance", "values": [{"name": "M", "value": 2048}, {"name": "N", "value": 1024}, {"name": "K", "value": 512}, {"name": "alpha", "value": 1}]}],
      "reference_source": "extern \"C\" __global__ void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float* C) {}",
      "launch": {"grid": ["ceil_div(N,16)", "ceil_div(M,16)", "1"], "block": ["16", "16", "1"], "shared_bytes": ""},
      "initial_source": "extern \"C\" __global__ void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float* C) {}",
      "initial_launch": {"grid": ["ceil_div(N,32)", "ceil_div(M,32)", "1"], "block": ["32", "32", "1"], "shared_bytes": "0"}
    })~")
        .as_object();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(feedback_suite)

BOOST_AUTO_TEST_CASE(signature_and_workload)
{
    BOOST_TEST(
        render_signature(sgemm(), "sgemm") ==
        "extern \"C\" __global__ void sgemm(int M, int N, int K, const float* __restrict__ A, const float* "
        "__restrict__ B, float* __restrict__ C)");
    const auto text = render_workload(sgemm());
    for (const char* n : {"## Workload: sgemm",
                          "37x61x19 [correctness]",
                          "4096x4096x4096 [performance]",
                          "M*K elements",
                          "Tolerance per output element",
                          "C: atol 0.001, rtol 0.001",
                          "Reference kernel",
                          "double sum"})
        BOOST_TEST(contains(text, n), n);
}

BOOST_AUTO_TEST_CASE(system_prompt_has_the_contract_and_the_format)
{
    const auto structured = render_system_prompt(true, true);
    for (const char* n : {"Device code only",
                          "extern \"C\" __global__",
                          "No dynamic parallelism",
                          "\"kernel_source\"",
                          "Tools:"})
        BOOST_TEST(contains(structured, n), n);
    const auto fenced = render_system_prompt(false, false);
    BOOST_TEST(contains(fenced, "```cuda"));
    BOOST_TEST(contains(fenced, "```json"));
    BOOST_TEST(!contains(fenced, "Tools:"));
}

BOOST_AUTO_TEST_CASE(user_prompt_carries_every_part_of_the_feedback)
{
    feedback_input in;
    in.work = &sgemm();
    in.device =
        json::object{{"name", "NVIDIA H200"}, {"arch", "sm_90"}, {"sm_count", 132}, {"l2_bytes", 52428800}};
    in.reference_median_us = {{"4096x4096x4096", 2000.0}};
    in.initial_median_us = {{"4096x4096x4096", 1000.0}};
    in.mode = proposal_mode::improve;
    in.branch = 2;
    in.iteration = 3;
    in.best = valid_candidate("c0004", 1, 500.0);
    in.parent = valid_candidate("c0002", 2, 800.0);
    in.parent->parent = "c0001";
    in.recent_failures.push_back(invalid_candidate(
        "c0005", 2, "compile_error", "c0005.cu(12): error: identifier \"accum\" is undefined"));
    in.recent_failures.push_back(
        invalid_candidate("c0006", 0, "mismatch", "case 37x61x19: 12 of 2257 elements differ"));
    in.other_branches.push_back(valid_candidate("c0004", 1, 500.0));
    in.hint = "try float4 loads";
    const auto text = render_user_prompt(in);
    BOOST_TEST(text.rfind("[warpsmith task=propose mode=improve branch=2 iteration=3]", 0) == 0u);
    for (const char* n : {"## Workload",
                          "## Device",
                          "NVIDIA H200",
                          "## Baselines",
                          "reference 2000.00 us",
                          "## Current best",
                          "c0004",
                          "4.00x vs reference",
                          "2.00x vs initial",
                          "## Parent",
                          "c0002",
                          "parent c0001",
                          "40 registers/thread",
                          "## Recent failures",
                          "compile_error",
                          "identifier \"accum\" is undefined",
                          "12 of 2257 elements differ",
                          "other branches",
                          "Advice for this round: try float4 loads",
                          "```cuda"})
        BOOST_TEST(contains(text, n), n);

    // When the parent is the best, its source is shown once.
    in.parent = in.best;
    const auto once = render_user_prompt(in);
    BOOST_TEST(contains(once, "## Current best (your parent)"));
    BOOST_TEST(!contains(once, "## Parent"));

    in.mode = proposal_mode::repair;
    in.repair_of =
        invalid_candidate("c0007", 2, "launch_failed", "case big: launch failed: CUDA_ERROR_INVALID_VALUE");
    const auto repair = render_user_prompt(in);
    BOOST_TEST(contains(repair, "mode=repair"));
    BOOST_TEST(contains(repair, "Your invalid candidate (to repair)"));
    BOOST_TEST(contains(repair, "CUDA_ERROR_INVALID_VALUE"));
}

BOOST_AUTO_TEST_CASE(user_prompt_carries_the_best_profile_with_its_owner)
{
    feedback_input in;
    in.work = &sgemm();
    in.mode = proposal_mode::improve;
    in.best = valid_candidate("c0004", 1, 500.0);
    BOOST_TEST(!contains(render_user_prompt(in), "Profile of"));
    in.best_profile =
        "Nsight Compute, kernel sgemm grid (128, 128, 1) block (32, 32, 1):\n- top warp stalls: mio_throttle "
        "40%\n";
    in.best_profile_id = "c0004";
    const auto own = render_user_prompt(in);
    BOOST_TEST(contains(own, "## Profile of the current best (c0004)"));
    BOOST_TEST(contains(own, "mio_throttle 40%"));
    in.best_profile_id = "c0002";
    BOOST_TEST(contains(render_user_prompt(in), "## Profile of an earlier best (c0002)"));
}

BOOST_AUTO_TEST_CASE(answer_repair_lists_the_problems)
{
    const auto t = render_answer_repair({"launch: missing", "entry: must be a string"}, true);
    BOOST_TEST(contains(t, "- launch: missing\n- entry: must be a string"));
    BOOST_TEST(contains(t, "JSON object only"));
    BOOST_TEST(contains(render_answer_repair({"x"}, false), "```cuda"));
    BOOST_TEST(prompts::fill_template("a {{x}} b {{y}}", {{"x", "1"}}) == "a 1 b {{y}}");
}

BOOST_AUTO_TEST_CASE(log_excerpt_puts_errors_first)
{
    std::string log;
    for (int i = 0; i < 200; ++i)
        log += "warning line " + std::to_string(i) + " with some padding to make it long\n";
    log += "kernel.cu(99): error: expected a ';'\n    int x = 1\n";
    const auto e = log_excerpt(log, 400);
    BOOST_TEST(e.rfind("kernel.cu(99): error: expected a ';'", 0) == 0u);
    BOOST_TEST(contains(e, "int x = 1"));
    BOOST_TEST(contains(e, "[log excerpt:"));
    BOOST_TEST(log_excerpt("short", 400) == "short");
}

BOOST_AUTO_TEST_CASE(tool_definitions)
{
    const auto defs = kernel_tool_definitions(false);
    BOOST_REQUIRE_EQUAL(defs.size(), 3u);
    BOOST_TEST(defs[0].name == "gpu_properties");
    BOOST_TEST(defs[1].name == "compile");
    BOOST_TEST(defs[1].parameters.at("required").as_array().size() == 2u);
    BOOST_TEST(defs[2].name == "history");
    BOOST_TEST(kernel_tool_definitions(true).size() == 4u);
    // --use-nsight adds the profile tool; its strict schema requires every property.
    const auto with_profile = kernel_tool_definitions(false, true);
    BOOST_REQUIRE_EQUAL(with_profile.size(), 4u);
    BOOST_TEST(with_profile[3].name == "profile");
    BOOST_TEST(with_profile[3].parameters.at("required").as_array().size() == 2u);
    const auto summary = device_summary(json::object{{"name", "H200"}, {"uuid", "GPU-x"}, {"sm_count", 132}});
    BOOST_TEST(summary.contains("sm_count"));
    BOOST_TEST(!summary.contains("uuid"));
    const auto topics = guidance_topics(test::source_dir() / "docs" / "guidance");
    BOOST_TEST(topics.size() >= 4u);
    for (const auto& t : topics)
        BOOST_TEST(guidance_text(test::source_dir() / "docs" / "guidance", t).has_value());
}

BOOST_AUTO_TEST_CASE(guidance_comes_from_the_data_directory)
{
    // The test programs sit in build/tests, beside build/bin, so build/share/warpsmith is their data
    // directory as it is warpsmith's; its guidance/ links to docs/guidance. An installed warpsmith
    // finds <prefix>/share/warpsmith/guidance the same way (tests/install).
    BOOST_TEST(std::filesystem::equivalent(default_guidance_dir(), test::source_dir() / "docs" / "guidance"));
}

BOOST_AUTO_TEST_CASE(architecture_notes_follow_the_compute_capability)
{
    const auto dir = test::source_dir() / "docs" / "guidance";
    const auto stem_for = [](int major, int minor)
    {
        const auto* n = architecture_note_for(compute_capability{major, minor});
        return n ? std::string(n->stem) : std::string("none");
    };
    // Every compute capability from 7.0 to 10.x gets a note, and its file exists and says something.
    for (int major = 7; major <= 10; ++major)
        for (int minor = 0; minor <= 9; ++minor)
        {
            const auto* n = architecture_note_for(compute_capability{major, minor});
            BOOST_TEST_CONTEXT(major << "." << minor)
            {
                BOOST_REQUIRE(n != nullptr);
                BOOST_TEST(std::filesystem::file_size(dir / "architectures" /
                                                      (std::string(n->stem) + ".md")) > 500u);
            }
        }
    // The real devices get their own architecture's note.
    BOOST_TEST(stem_for(7, 0) == "sm_70");    // V100
    BOOST_TEST(stem_for(7, 2) == "sm_70");    // Xavier
    BOOST_TEST(stem_for(7, 5) == "sm_75");    // T4
    BOOST_TEST(stem_for(8, 0) == "sm_80");    // A100
    BOOST_TEST(stem_for(8, 6) == "sm_86");    // A10, RTX 30
    BOOST_TEST(stem_for(8, 7) == "sm_86");    // Orin
    BOOST_TEST(stem_for(8, 9) == "sm_89");    // L4, RTX 40
    BOOST_TEST(stem_for(9, 0) == "sm_90");    // H100, H200
    BOOST_TEST(stem_for(10, 0) == "sm_100");  // B200
    BOOST_TEST(stem_for(6, 1) == "none");
    BOOST_TEST(stem_for(12, 0) == "none");
    // Every note file is reachable from some compute capability.
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir / "architectures"))
        files.insert(e.path().stem().string());
    std::set<std::string> notes;
    for (const auto& n : architecture_notes())
        notes.insert(n.stem);
    BOOST_TEST(files == notes);

    // Each note states its own residency limits and instructions.
    const auto text = [&](const std::string& stem)
    {
        std::ifstream f(dir / "architectures" / (stem + ".md"));
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    };
    const std::map<std::string, std::vector<std::string>> facts{
        {"sm_70", {"2048 threads (64 warps), 32 blocks", "wmma", "96 KB"}},
        {"sm_75", {"1024 threads (32 warps), 16 blocks", "ldmatrix", "64 KB"}},
        {"sm_80", {"2048 threads (64 warps), 32 blocks", "cp.async", "TF32", "BF16", "163 KB"}},
        {"sm_86", {"1536 threads (48 warps), 16 blocks", "99 KB"}},
        {"sm_89", {"1536 threads (48 warps), 24 blocks", "FP8", "99 KB"}},
        {"sm_90", {"2048 threads (64 warps), 32 blocks", "wgmma", "cluster", "227 KB", "TMA"}},
        {"sm_100", {"2048 threads (64 warps), 32 blocks", "tcgen05", "Tensor Memory", "227 KB"}},
    };
    for (const auto& [stem, needles] : facts)
        for (const auto& needle : needles)
            BOOST_TEST(contains(text(stem), needle), stem << ": " << needle);

    // The compute capability comes from device-info JSON in any of its forms.
    const auto cc_of = [](json::object d)
    {
        const auto cc = compute_capability_of(d);
        return cc ? cc->text() : std::string("none");
    };
    BOOST_TEST(cc_of(json::object{{"compute_capability", json::array{8, 6}}}) == "8.6");
    BOOST_TEST(cc_of(json::object{{"compute_capability", "8.9"}}) == "8.9");
    BOOST_TEST(cc_of(json::object{{"arch", "sm_90a"}}) == "9.0");
    BOOST_TEST(cc_of(json::object{{"arch", "sm_100a"}}) == "10.0");
    BOOST_TEST(cc_of(json::object{{"arch", "compute_x"}}) == "none");
    BOOST_TEST(cc_of(json::object{}) == "none");

    // The nvidia_docs tool serves the device's note as the topic "architecture".
    const auto arch = architecture_guidance(dir, json::object{{"compute_capability", json::array{8, 7}}});
    BOOST_REQUIRE(arch.has_value());
    BOOST_TEST(contains(*arch, "sm_86"));
    BOOST_TEST(contains(*arch, "compute capability 8.7"));
    BOOST_TEST(!architecture_guidance(dir, json::object{{"compute_capability", json::array{6, 1}}}));
    kernel_tools_context tctx;
    tctx.device = json::object{{"compute_capability", json::array{7, 5}}};
    tctx.nvidia_docs = true;
    tctx.guidance_dir = dir;
    kernel_tools tools(tctx);
    const auto call = [&](const std::string& topic)
    {
        // The call outlives the coroutine's first suspension: a named local, not a temporary.
        const tool_call c{"1", "nvidia_docs", json::serialize(json::object{{"topic", topic}})};
        boost::asio::io_context ioc;
        std::string out;
        boost::asio::co_spawn(
            ioc, tools.execute(c), [&](std::exception_ptr, std::string s) { out = std::move(s); });
        ioc.run();
        return out;
    };
    BOOST_TEST(contains(call("index"), "\"architecture\""));
    BOOST_TEST(contains(call("architecture"), "Turing"));
    BOOST_TEST(contains(call("architecture"), "1024 threads (32 warps)"));
}

BOOST_AUTO_TEST_CASE(history_details)
{
    auto c = valid_candidate("c0003", 0, 1000.0);
    const auto d = candidate_details(c, {{"4096x4096x4096", 2000.0}});
    BOOST_TEST(d.at("id") == "c0003");
    BOOST_TEST(d.at("cases").at("4096x4096x4096").at("speedup_vs_reference").to_number<double>() == 2.0);
    BOOST_TEST(d.at("kernel_source").as_string().size() > 100u);
    const auto bad = candidate_details(invalid_candidate("c0009", 1, "fault", "illegal address"), {});
    BOOST_TEST(bad.at("failure").at("kind") == "fault");
    BOOST_TEST(!bad.contains("cases"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(exchange_policy_suite)

BOOST_AUTO_TEST_CASE(next_step_decisions)
{
    exchange_settings s{2, 2};
    model_response r;
    r.text = "{}";
    BOOST_TEST((next_step(r, 0, s).action == exchange_step::kind::validate));
    r.tool_calls.push_back(tool_call{"1", "compile", "{}"});
    BOOST_TEST((next_step(r, 1, s).action == exchange_step::kind::run_tools));
    BOOST_TEST((next_step(r, 2, s).action == exchange_step::kind::withdraw_tools));
    model_response refused;
    refused.refusal = "no";
    BOOST_TEST((next_step(refused, 0, s).action == exchange_step::kind::refused));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(inference_checks_suite)

BOOST_AUTO_TEST_CASE(missing_parts_of_what_was_given)
{
    BOOST_TEST(missing_parts(json::object{}) ==
               (std::vector<std::string>{"signature", "cases", "reference", "initial"}));
    BOOST_TEST(missing_parts(json::object{{"signature", json::object{}}, {"reference_source", "x"}}) ==
               (std::vector<std::string>{"cases", "initial"}));
}

BOOST_AUTO_TEST_CASE(merge_builds_a_loadable_workload)
{
    const auto m = merge_inferred(json::object{}, sgemm_inference_answer(), "GEMM.");
    BOOST_REQUIRE_MESSAGE(m.json, (m.problems.empty() ? "" : m.problems.front()));
    const auto w = workload::from_json(*m.json, ".", "inferred");
    BOOST_TEST(w.name == "sgemm_rect");
    BOOST_TEST(w.description == "GEMM.");
    BOOST_TEST(w.cases.size() == 3u);
    BOOST_TEST(w.cases[0].float_values.at("alpha") == 1.5);  // float scalars go to float_values
    BOOST_TEST(w.initial.has_value());
    BOOST_TEST(check_inferred_cases(w).empty());

    // Given parts win over the answer.
    json::object given{{"cases",
                        json::array{json::object{{"name", "only"},
                                                 {"values", json::object{{"M", 2}, {"N", 2}, {"K", 2}}},
                                                 {"float_values", json::object{{"alpha", 1}}}}}}};
    const auto m2 = merge_inferred(given, sgemm_inference_answer(), "GEMM.");
    BOOST_REQUIRE(m2.json);
    BOOST_TEST(m2.json->at("cases").as_array().size() == 1u);
    const auto w2 = workload::from_json(*m2.json, ".", "inferred");
    const auto problems = check_inferred_cases(w2);
    BOOST_TEST(problems.size() == 2u);  // no odd correctness cases, no performance case
}

BOOST_AUTO_TEST_CASE(merge_reports_shape_problems)
{
    auto a = sgemm_inference_answer();
    a.erase("reference_source");
    a["cases"] =
        json::array{json::object{{"name", "x"}, {"values", json::array{json::object{{"name", "M"}}}}}};
    const auto m = merge_inferred(json::object{}, a, "");
    BOOST_TEST(!m.json);
    bool ref = false, vals = false;
    for (const auto& p : m.problems)
    {
        ref = ref || contains(p, "reference_source: missing");
        vals = vals || contains(p, "cases[0].values");
    }
    BOOST_TEST(ref);
    BOOST_TEST(vals);
    BOOST_TEST(merge_inferred(json::object{}, json::value(1), "").problems.size() == 1u);
}

BOOST_AUTO_TEST_CASE(merge_refuses_case_keys_outside_the_schema)
{
    // A model answer (fenced block, or a server that ignores the schema) whose case reads its input
    // from a host file: loading it would read the file (its size comes back in the error), the worker
    // would upload it, and mismatch reports would show its bytes to the model.
    auto a = sgemm_inference_answer();
    auto& cases = a["cases"].as_array();
    cases[0].as_object()["inputs"] =
        json::object{{"A", json::object{{"gen", "file"}, {"path", "/etc/hostname"}}}};
    cases[1].as_object()["seed"] = 7;
    const auto m = merge_inferred(json::object{}, a, "");
    BOOST_TEST(!m.json);
    BOOST_REQUIRE(m.problems.size() == 2u);
    BOOST_TEST(m.problems[0] ==
               "cases[0].inputs: not part of an inferred case (name, role and values only; inputs are "
               "generated)");
    BOOST_TEST(m.problems[1] ==
               "cases[1].seed: not part of an inferred case (name, role and values only; inputs are "
               "generated)");
}

BOOST_AUTO_TEST_CASE(merge_refuses_values_that_are_no_int64)
{
    // A fraction and a number far outside int64 (whose cast would be undefined): each a problem.
    auto a = sgemm_inference_answer();
    auto& cases = a["cases"].as_array();
    auto& v0 = cases[0].as_object()["values"].as_array()[0].as_object();
    auto& v1 = cases[1].as_object()["values"].as_array()[0].as_object();
    v0["value"] = 1e300;
    v1["value"] = 2.5;
    const auto m = merge_inferred(json::object{}, a, "");
    BOOST_TEST(!m.json);
    BOOST_REQUIRE(m.problems.size() == 2u);
    BOOST_TEST(m.problems[0] ==
               "cases[0].values." + std::string(v0["name"].as_string()) + ": must be an integer");
    BOOST_TEST(m.problems[1] ==
               "cases[1].values." + std::string(v1["name"].as_string()) + ": must be an integer");
}

BOOST_AUTO_TEST_CASE(reference_load_report)
{
    const auto ok = json::parse(R"({"cases": [{"name": "a", "reference": {"all_zero": {"C": false},
        "nonfinite": {"C": 0}, "depends_on_inputs": true}}]})")
                        .as_object();
    BOOST_TEST(check_reference_load(ok).empty());
    const auto bad = json::parse(R"({"cases": [{"name": "a", "reference": {"all_zero": {"C": true},
        "nonfinite": {"C": 3}, "depends_on_inputs": false}}]})")
                         .as_object();
    const auto p = check_reference_load(bad);
    BOOST_REQUIRE_EQUAL(p.size(), 3u);
    BOOST_TEST(p[0] == "case 'a': the reference wrote only zeros to 'C'");
    BOOST_TEST(contains(p[1], "3 NaN/Inf values in 'C'"));
    BOOST_TEST(contains(p[2], "does not depend on the inputs"));
    BOOST_TEST(check_reference_load(json::object{}).size() == 1u);
    // The inference schema is strict too.
    const auto s = inference_json_schema();
    BOOST_TEST(s.at("additionalProperties") == false);
    BOOST_TEST(s.at("required").as_array().size() == s.at("properties").as_object().size());
}

BOOST_AUTO_TEST_SUITE_END()
