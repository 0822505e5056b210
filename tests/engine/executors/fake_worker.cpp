// fake_worker: a stand-in for warpsmith-worker that speaks docs/worker-protocol.md (JSON lines on
// stdin/stdout) in both modes without a GPU or NVRTC, with simulated latencies and behaviour chosen
// by markers in the candidate source. The engine's executor tests, the search-loop tests and the
// pipeline benchmark drive it instead of the real worker.
//
//   fake_worker --device K | --compile
//               [--hello-ms N] [--load-ms N] [--evaluate-ms N] [--compile-ms N]
//               [--log FILE]          append one line per event: "<steady_ns> <pid> <event> <name>"
//               [--no-device]         GPU mode: hello answers ok:false, kind no_device
//               [--exit-at-start N]   exit with code N before reading anything
//               [--ignore-shutdown]   answer shutdown but keep running; ignore SIGTERM and EOF
//               [--no-cublas]         GPU mode: the baseline op answers no_baseline (cuBLAS missing)
//               [--unsandboxed-compiles] hello says its compiles run without the Landlock sandbox
//               [--cache-dir D] [--no-cache] [--log-level L] [--memory-limit-mib N]   accepted and
//                                     ignored
//
// Events written to --log (one write(2) per line with O_APPEND, so several fakes may share a file;
// steady_ns is CLOCK_MONOTONIC, comparable across processes): start (name = mode), hello, load
// (name = hidden_seed),
// evaluate_begin/evaluate_end (name = request name), compile_begin/compile_end (name = request
// name), waiting (name = request name; FAKE: wait_for), device_info, interleaved, baseline
// (name = "name/math"), shutdown, crash, fault, hang,
// profiled_launch (name = "request/case", for an evaluate carrying "profile_case").
//
// Markers: any "FAKE: key" or "FAKE: key=value" in a candidate's source (GPU mode reads them from
// "source", or from a cubin made by this fake in compile mode, which is "FAKE-CUBIN\n" followed by
// the source). A real cubin (NVRTC output) is searched as bytes: markers kept in initialized device
// data work there, e.g. `extern "C" __device__ const char fake_marker[] = "FAKE: median_us=50";`;
// without markers it evaluates as valid with the default timing. A marker ends at whitespace, '"'
// or NUL.
//   FAKE: median_us=X          median of every timed case (default 100); p10/p90 etc. derive from it
//   FAKE: evaluate_ms=N        this evaluation's latency (overrides --evaluate-ms)
//   FAKE: invalid=KIND         status invalid, failure.kind KIND (e.g. mismatch), on the first case
//   FAKE: fault                answer invalid/fault with "worker_restart": true, then exit 3
//   FAKE: launch_hang          answer invalid/hang with "worker_restart": true, then exit 3
//   FAKE: context_lost         answer ok:false, kind internal, with "worker_restart": true, then
//                              exit 3 (what the real worker says when an error outside the kernel
//                              loses the CUDA context)
//   FAKE: hang                 never answer (sleep forever): the engine's deadline must fire
//   FAKE: crash[=N]            exit with code N (default 86) without answering
//   FAKE: crash_once=PATH      exit 86 without answering unless PATH exists; create PATH first (so
//                              the executor's second attempt on a new worker succeeds)
//   FAKE: wait_for=PATH        log "waiting <name>", then hold the evaluation until PATH exists
//   FAKE: malformed            answer with a line that is not JSON
//   FAKE: exit_after_response  answer normally, then exit 0
//   FAKE: stderr=WORD          write "fake_worker: WORD" to stderr while handling the request
// time_interleaved (the final confirmation; the response always carries "invalid", maybe empty):
//   FAKE: confirm_median_us=X  median in time_interleaved instead of median_us
//   FAKE: confirm_invalid[=KIND]   listed in "invalid" with kind KIND (default timed_output_mismatch)
//                              on the first performance case, and no timings (an invalid entry may
//                              have partial or empty timings)
//   FAKE: confirm_crash        exit 86 without answering time_interleaved (the whole confirmation fails)
// Compile mode (and GPU-mode candidates that carry "source"):
//   FAKE: compile_error        compiled false, error "fake compile error", a log line
//   FAKE: compile_ms=N         this compile's latency (overrides --compile-ms)
//   FAKE: registers=N          resources.registers (default 32)
//   FAKE: compile_crash        exit 86 without answering
//   FAKE: compile_crash_once=PATH   crash unless PATH exists; create PATH first (so a retry succeeds)
// The compile output also fails (entry not found) when the entry name does not occur in the source.
// Workload (load_workload): "FAKE: reference_failed" in the reference source answers ok:false,
// kind reference_failed.
// Vendor baselines (op baseline): a declaration of the loaded workload's "baselines" with that kind
// (and name, when given) is "timed" with fixed numbers, like the simulated backend's: every
// performance case takes 50 us in FP32 (within the tolerance) and 25 us in TF32 (outside it, with a
// larger error). No such declaration, or --no-cublas, answers no_baseline.

#include "harness/core/digest.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace json = boost::json;

namespace
{

struct config
{
    bool compile_mode = false;
    int device = 0;
    int hello_ms = 0;
    int load_ms = 0;
    int evaluate_ms = 0;
    int compile_ms = 0;
    std::string log_path;
    bool no_device = false;
    bool unsandboxed_compiles = false;
    int exit_at_start = -1;
    bool ignore_shutdown = false;
    bool no_cublas = false;
};

config g_cfg;
json::array g_cases;      // [{name, role}] of the loaded workload
json::array g_baselines;  // the loaded workload's "baselines" declarations
bool g_loaded = false;

void log_event(const std::string& event, const std::string& name = {})
{
    if (g_cfg.log_path.empty())
        return;
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
    std::string line = std::to_string(ns) + " " + std::to_string(::getpid()) + " " + event + " " +
                       (name.empty() ? "-" : name) + "\n";
    int fd = ::open(g_cfg.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    [[maybe_unused]] auto n = ::write(fd, line.data(), line.size());
    ::close(fd);
}

void sleep_ms(int ms)
{
    if (ms > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void send(const json::object& o)
{
    std::string line = json::serialize(o);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

json::object ok(const json::value& id)
{
    json::object o;
    o["id"] = id;
    o["ok"] = true;
    return o;
}

json::object fail(const json::value& id, std::string kind, std::string message)
{
    json::object o;
    o["id"] = id;
    o["ok"] = false;
    o["error"] = json::object{{"kind", kind}, {"message", message}};
    return o;
}

/// Markers "FAKE: key[=value]" found in text.
std::map<std::string, std::string> markers(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::size_t pos = 0;
    while ((pos = text.find("FAKE:", pos)) != std::string::npos)
    {
        pos += 5;
        while (pos < text.size() && text[pos] == ' ')
            ++pos;
        std::size_t end = pos;
        while (end < text.size() && text[end] != '\0' && text[end] != '"' &&
               !std::isspace(static_cast<unsigned char>(text[end])))
            ++end;
        std::string token = text.substr(pos, end - pos);
        auto eq = token.find('=');
        if (eq == std::string::npos)
            out[token] = "";
        else
            out[token.substr(0, eq)] = token.substr(eq + 1);
        pos = end;
    }
    return out;
}

int marker_int(const std::map<std::string, std::string>& m, const std::string& key, int fallback)
{
    auto it = m.find(key);
    return it == m.end() || it->second.empty() ? fallback : std::atoi(it->second.c_str());
}

[[noreturn]] void hang_forever()
{
    log_event("hang");
    for (;;)
        sleep_ms(1000);
}

[[noreturn]] void crash(int code)
{
    log_event("crash");
    std::fflush(stdout);
    ::_exit(code);
}

/// Exits 86 unless `path` exists, creating it first: the first attempt dies, a retry succeeds.
void crash_unless_exists(const std::string& path)
{
    if (::access(path.c_str(), F_OK) == 0)
        return;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        ::close(fd);
    crash(86);
}

/// Holds an evaluation until `path` exists, so that a test acts while it is surely in progress
/// (kills the worker's ssh connection or cancels its Slurm step) and then lets it finish.
void wait_for_file(const std::string& path, const std::string& name)
{
    log_event("waiting", name);
    while (::access(path.c_str(), F_OK) != 0)
        sleep_ms(5);
}

void common_markers(const std::map<std::string, std::string>& m)
{
    if (auto it = m.find("stderr"); it != m.end())
    {
        std::fprintf(stderr, "fake_worker: %s\n", it->second.c_str());
        std::fflush(stderr);
    }
    if (m.count("malformed"))
    {
        std::fputs("this is not a JSON object\n", stdout);
        std::fflush(stdout);
    }
    if (m.count("hang"))
        hang_forever();
    if (m.count("crash"))
        crash(marker_int(m, "crash", 86));
}

json::object device_json()
{
    return json::object{
        {"name", "Fake GPU"},
        {"index", g_cfg.device},
        {"arch", "sm_90"},
        {"compute_capability", json::array{9, 0}},
        {"sm_count", 132},
        {"total_memory_bytes", 150000000000LL},
        {"free_memory_bytes", 149000000000LL},
        {"l2_bytes", 52428800},
        {"shared_memory_per_block_bytes", 49152},
        {"shared_memory_per_block_optin_bytes", 232448},
        {"shared_memory_per_sm_bytes", 233472},
        {"registers_per_block", 65536},
        {"registers_per_sm", 65536},
        {"max_threads_per_block", 1024},
        {"max_threads_per_sm", 2048},
        {"warp_size", 32},
        {"max_grid", json::array{2147483647, 65535, 65535}},
        {"max_block", json::array{1024, 1024, 64}},
        {"clock_mhz", 1980},
        {"memory_clock_mhz", 3201},
        {"memory_bus_bits", 6144},
        {"driver_version", "fake"},
        {"uuid", "GPU-fake-" + std::to_string(g_cfg.device)},
        {"clocks", json::object{{"sm_mhz", 1980}, {"mem_mhz", 3201}}},
    };
}

json::object timing_json(double median, const json::object& timing)
{
    int iterations = 100, warmup = 10;
    std::string mode = "cold";
    if (auto* v = timing.if_contains("iterations"); v && v->is_int64())
        iterations = static_cast<int>(v->get_int64());
    if (auto* v = timing.if_contains("warmup"); v && v->is_int64())
        warmup = static_cast<int>(v->get_int64());
    if (auto* v = timing.if_contains("mode"); v && v->is_string())
        mode = std::string(v->get_string());
    return json::object{
        {"median_us", median},
        {"mean_us", median * 1.005},
        {"min_us", median * 0.97},
        {"max_us", median * 1.1},
        {"p10_us", median * 0.98},
        {"p90_us", median * 1.03},
        {"stddev_us", median * 0.01},
        {"rel_iqr", 0.02},
        {"samples", iterations},
        {"warmup", warmup},
        {"mode", mode},
        {"wall_us_per_launch", median * 1.02},
        {"suspect", false},
        {"timed_output_valid", true},
    };
}

/// The compile output for a request (compile mode, or a GPU-mode candidate carrying source).
json::object fake_compile(const json::object& req)
{
    std::string source = req.contains("source") ? std::string(req.at("source").as_string()) : "";
    std::string entry = req.contains("entry") ? std::string(req.at("entry").as_string()) : "";
    std::string arch = req.contains("arch") ? std::string(req.at("arch").as_string()) : "sm_90";
    std::string name = req.contains("name") ? std::string(req.at("name").as_string()) : "kernel.cu";
    auto m = markers(source);
    std::string key_text = source + "\n" + arch;
    if (auto* opts = req.if_contains("options"); opts && opts->is_array())
        for (const auto& o : opts->as_array())
            key_text += "\n" + std::string(o.as_string());

    json::object out;
    out["arch"] = arch;
    out["key"] = warpsmith::sha256_hex(key_text);
    out["cache_hit"] = false;
    out["compile_ms"] = static_cast<double>(marker_int(m, "compile_ms", g_cfg.compile_ms));
    json::object resources{{"registers", marker_int(m, "registers", 32)},
                           {"spill_stores_bytes", 0},
                           {"spill_loads_bytes", 0},
                           {"static_shared_bytes", 0},
                           {"stack_frame_bytes", 0},
                           {"barriers", 0},
                           {"constant_bytes", 0}};
    if (m.count("compile_error"))
    {
        out["compiled"] = false;
        out["error"] = "fake compile error";
        out["log"] = name + "(1): error: fake compile error\n";
        out["cubin_b64"] = "";
        out["entries"] = json::array{};
        out["resources"] = resources;
        return out;
    }
    if (entry.empty() || source.find(entry) == std::string::npos)
    {
        out["compiled"] = false;
        out["error"] = "entry '" + entry + "' not found";
        out["log"] = "";
        out["cubin_b64"] = "";
        out["entries"] = json::array{};
        out["resources"] = resources;
        return out;
    }
    out["compiled"] = true;
    out["error"] = "";
    out["log"] =
        "ptxas info    : Used " + std::to_string(marker_int(m, "registers", 32)) + " registers (fake)\n";
    out["cubin_b64"] = warpsmith::base64_encode("FAKE-CUBIN\n" + source);
    out["entries"] = json::array{json::value(entry)};
    out["resources"] = resources;
    return out;
}

void handle_compile(const json::object& req)
{
    const json::value& id = req.at("id");
    const json::value* r = req.if_contains("request");
    if (!r || !r->is_object())
    {
        send(fail(id, "bad_request", "compile: 'request' is missing"));
        return;
    }
    const auto& cr = r->as_object();
    std::string name = cr.contains("name") ? std::string(cr.at("name").as_string()) : "kernel.cu";
    std::string source = cr.contains("source") ? std::string(cr.at("source").as_string()) : "";
    auto m = markers(source);
    log_event("compile_begin", name);
    if (m.count("compile_crash"))
        crash(86);
    if (auto it = m.find("compile_crash_once"); it != m.end())
        crash_unless_exists(it->second);
    common_markers(m);
    sleep_ms(marker_int(m, "compile_ms", g_cfg.compile_ms));
    auto resp = ok(id);
    resp["output"] = fake_compile(cr);
    log_event("compile_end", name);
    send(resp);
}

/// The source a GPU-mode candidate was made from, when known (markers live there).
std::string candidate_text(const json::object& cand)
{
    if (auto* s = cand.if_contains("source"); s && s->is_string())
        return std::string(s->get_string());
    if (auto* c = cand.if_contains("cubin_b64"); c && c->is_string())
    {
        std::string bin;
        try
        {
            bin = warpsmith::base64_decode(c->get_string());
        }
        catch (const std::exception&)
        {
            return {};
        }
        if (bin.rfind("FAKE-CUBIN\n", 0) == 0)
            return bin.substr(11);
        // A real cubin: markers survive in initialized device data, e.g.
        // extern "C" __device__ const char fake_marker[] = "FAKE: invalid=mismatch";
        return bin;
    }
    return {};
}

void handle_evaluate(const json::object& req)
{
    const json::value& id = req.at("id");
    std::string name = req.contains("name") && req.at("name").is_string()
                           ? std::string(req.at("name").as_string())
                           : "candidate";
    if (!g_loaded)
    {
        send(fail(id, "no_workload", "evaluate before load_workload"));
        return;
    }
    const json::value* cv = req.if_contains("candidate");
    if (!cv || !cv->is_object() || !cv->as_object().contains("entry"))
    {
        send(fail(id, "bad_request", "evaluate: 'candidate.entry' is missing"));
        return;
    }
    const auto& cand = cv->as_object();
    std::string text = candidate_text(cand);
    auto m = markers(text);
    log_event("evaluate_begin", name);
    common_markers(m);
    if (auto it = m.find("crash_once"); it != m.end())
        crash_unless_exists(it->second);
    if (auto it = m.find("wait_for"); it != m.end())
        wait_for_file(it->second, name);
    sleep_ms(marker_int(m, "evaluate_ms", g_cfg.evaluate_ms));
    if (m.count("context_lost"))
    {
        auto resp = fail(id, "internal", "evaluate: the CUDA context is lost and the worker restarts (fake)");
        resp["worker_restart"] = true;
        log_event("evaluate_end", name);
        send(resp);
        log_event("fault", name);
        ::_exit(3);
    }

    json::object timing;
    if (auto* t = req.if_contains("timing"); t && t->is_object())
        timing = t->as_object();
    bool validate_only = req.contains("validate_only") && req.at("validate_only").is_bool() &&
                         req.at("validate_only").as_bool();
    std::vector<std::string> subset;
    if (auto* c = req.if_contains("cases"); c && c->is_array())
        for (const auto& e : c->as_array())
            subset.emplace_back(e.as_string());

    std::string failure_kind;
    bool restart = false;
    if (m.count("fault"))
        failure_kind = "fault", restart = true;
    else if (m.count("launch_hang"))
        failure_kind = "hang", restart = true;
    else if (auto it = m.find("invalid"); it != m.end())
        failure_kind = it->second.empty() ? "mismatch" : it->second;
    if (cand.contains("source") && failure_kind.empty())
    {
        json::object creq{{"source", cand.at("source")}, {"entry", cand.at("entry")}};
        auto out = fake_compile(creq);
        if (!out.at("compiled").as_bool())
            failure_kind = "compile_error";
    }

    double median = 100.0;
    if (auto it = m.find("median_us"); it != m.end())
        median = std::atof(it->second.c_str());

    json::array cases;
    std::string first_case;
    double log_sum = 0;
    int perf = 0;
    for (const auto& c : g_cases)
    {
        const auto& co = c.as_object();
        std::string cname(co.at("name").as_string());
        if (!subset.empty() && std::find(subset.begin(), subset.end(), cname) == subset.end())
            continue;
        std::string role(co.at("role").as_string());
        bool passed = failure_kind.empty() || !first_case.empty();
        if (first_case.empty())
            first_case = cname;
        json::object run{{"inputs", "stated"},
                         {"passed", passed},
                         {"elements", 1024},
                         {"mismatches", passed ? 0 : 17},
                         {"unwritten", 0},
                         {"nonfinite", 0},
                         {"max_abs_error", passed ? 1e-7 : 0.5},
                         {"max_rel_error", passed ? 1e-7 : 1.0},
                         {"first_mismatches", json::array{}}};
        json::object cr{
            {"name", cname},
            {"role", role},
            {"launch",
             json::object{
                 {"grid", json::array{1, 1, 1}}, {"block", json::array{128, 1, 1}}, {"shared_bytes", 0}}},
            {"validation",
             json::object{{"passed", passed},
                          {"runs", json::array{run}},
                          {"guards_intact", true},
                          {"inputs_intact", true},
                          {"repeat_agrees", true}}},
        };
        if (failure_kind.empty() && !validate_only && role == "performance")
        {
            cr["timing"] = timing_json(median, timing);
            log_sum += std::log(median);
            ++perf;
        }
        else
            cr["timing"] = nullptr;
        cases.emplace_back(std::move(cr));
    }

    json::object result;
    result["status"] = failure_kind.empty() ? "valid" : "invalid";
    if (failure_kind.empty())
        result["failure"] = nullptr;
    else
        result["failure"] = json::object{{"kind", failure_kind},
                                         {"case", first_case},
                                         {"message", "fake " + failure_kind + " on case " + first_case}};
    result["cases"] = std::move(cases);
    if (failure_kind.empty() && !validate_only && perf > 0)
        result["score_us"] = std::exp(log_sum / perf);
    else
        result["score_us"] = nullptr;
    result["environment"] = json::object{
        {"gpu", "Fake GPU"},
        {"arch", "sm_90"},
        {"driver_version", "fake"},
        {"nvrtc_version", "fake"},
        {"worker_version", "fake"},
        {"clocks",
         json::object{
             {"sm_mhz_start", 1980}, {"sm_mhz_end", 1980}, {"mem_mhz_start", 3201}, {"mem_mhz_end", 3201}}}};
    result["eval_ms"] = static_cast<double>(marker_int(m, "evaluate_ms", g_cfg.evaluate_ms));
    // Under (fake_)ncu: the repeat run of this case is the profiled launch (docs/nsight.md).
    if (auto* pc = req.if_contains("profile_case"); pc && pc->is_string())
    {
        log_event("profiled_launch", name + "/" + std::string(pc->as_string()));
        result["profiled"] =
            json::object{{"case", *pc}, {"run", "repeat"}, {"launched", failure_kind.empty()}};
    }

    auto resp = ok(id);
    resp["result"] = std::move(result);
    if (restart)
        resp["worker_restart"] = true;
    log_event("evaluate_end", name);
    send(resp);
    if (restart)
    {
        log_event(failure_kind == "fault" ? "fault" : "hang", name);
        ::_exit(3);
    }
    if (m.count("exit_after_response"))
        ::_exit(0);
}

void handle_load(const json::object& req)
{
    const json::value& id = req.at("id");
    std::string seed = "-";
    if (auto* hs = req.if_contains("hidden_seed"); hs && hs->is_number())
        seed = hs->is_uint64() ? std::to_string(hs->get_uint64())
                               : std::to_string(hs->to_number<std::int64_t>());
    log_event("load", seed);
    sleep_ms(g_cfg.load_ms);
    const json::value* w = req.if_contains("workload");
    if (!w || !w->is_object())
    {
        send(fail(id, "bad_request", "load_workload: 'workload' is missing"));
        return;
    }
    const auto& wo = w->as_object();
    std::string ref_text;
    if (auto* r = wo.if_contains("reference_source"); r && r->is_string())
        ref_text = std::string(r->get_string());
    else if (auto* r2 = wo.if_contains("reference"); r2)
        ref_text = json::serialize(*r2);
    if (markers(ref_text).count("reference_failed"))
    {
        g_loaded = false;
        send(fail(id, "reference_failed", "the reference does not compile (fake)"));
        return;
    }
    g_cases.clear();
    g_baselines.clear();
    if (auto* bs = wo.if_contains("baselines"); bs && bs->is_array())
        g_baselines = bs->as_array();
    json::array cases_out;
    if (auto* cs = wo.if_contains("cases"); cs && cs->is_array())
    {
        for (const auto& c : cs->as_array())
        {
            if (!c.is_object() || !c.as_object().contains("name"))
                continue;
            std::string role = "correctness";
            if (auto* r = c.as_object().if_contains("role"); r && r->is_string())
                role = std::string(r->get_string());
            g_cases.emplace_back(json::object{{"name", c.as_object().at("name")}, {"role", role}});
            cases_out.emplace_back(json::object{{"name", c.as_object().at("name")},
                                                {"role", role},
                                                {"elements", json::object{}},
                                                {"reference",
                                                 json::object{{"all_zero", json::object{}},
                                                              {"nonfinite", json::object{}},
                                                              {"depends_on_inputs", true}}}});
        }
    }
    g_loaded = true;
    auto resp = ok(id);
    resp["cases"] = std::move(cases_out);
    resp["device_bytes"] = 4096;
    resp["load_ms"] = static_cast<double>(g_cfg.load_ms);
    send(resp);
}

void handle_interleaved(const json::object& req)
{
    const json::value& id = req.at("id");
    log_event("interleaved");
    json::object timing;
    if (auto* t = req.if_contains("timing"); t && t->is_object())
        timing = t->as_object();
    json::object timings;
    json::object invalid;
    if (auto* es = req.if_contains("entries"); es && es->is_array())
    {
        for (const auto& e : es->as_array())
        {
            const auto& eo = e.as_object();
            std::string text = candidate_text(eo.at("candidate").as_object());
            auto m = markers(text);
            common_markers(m);
            if (m.count("confirm_crash"))
                crash(86);
            const json::string key = eo.at("key").as_string();
            std::string first_perf;
            for (const auto& c : g_cases)
                if (c.as_object().at("role").as_string() == "performance" && first_perf.empty())
                    first_perf = std::string(c.as_object().at("name").as_string());
            if (auto it = m.find("confirm_invalid"); it != m.end())
            {
                const std::string kind = it->second.empty() ? "timed_output_mismatch" : it->second;
                invalid[key] = json::object{
                    {"kind", kind},
                    {"case", first_perf.empty() ? json::value(nullptr) : json::value(first_perf)},
                    {"message", "fake " + kind + " in an interleaved launch on case " + first_perf}};
                timings[key] = json::object{};
                continue;
            }
            double median = 100.0;
            if (auto it = m.find("median_us"); it != m.end())
                median = std::atof(it->second.c_str());
            if (auto it = m.find("confirm_median_us"); it != m.end())
                median = std::atof(it->second.c_str());
            json::object per_case;
            for (const auto& c : g_cases)
                if (c.as_object().at("role").as_string() == "performance")
                    per_case[c.as_object().at("name").as_string()] = timing_json(median, timing);
            timings[key] = std::move(per_case);
        }
    }
    auto resp = ok(id);
    resp["timings"] = std::move(timings);
    resp["invalid"] = std::move(invalid);
    send(resp);
}

void handle_baseline(const json::object& req)
{
    const json::value& id = req.at("id");
    if (!g_loaded)
    {
        send(fail(id, "no_workload", "baseline before load_workload"));
        return;
    }
    auto text = [&](const char* key, const char* fallback)
    {
        const auto* v = req.if_contains(key);
        return v && v->is_string() ? std::string(v->get_string()) : std::string(fallback);
    };
    const std::string kind = text("kind", "");
    const std::string math = text("math", "fp32");
    const std::string wanted = text("name", "");
    const json::object* decl = nullptr;
    for (const auto& b : g_baselines)
        if (b.is_object() && b.as_object().contains("kind") && b.at("kind") == kind.c_str() &&
            (wanted.empty() || (b.as_object().contains("name") && b.at("name") == wanted.c_str())))
        {
            decl = &b.as_object();
            break;
        }
    if (!decl)
    {
        send(fail(id,
                  "no_baseline",
                  "baseline: the workload declares no " + kind + " baseline" +
                      (wanted.empty() ? std::string() : " named '" + wanted + "'")));
        return;
    }
    if (g_cfg.no_cublas)
    {
        send(fail(id, "no_baseline", "baseline: cuBLAS not found (fake_worker --no-cublas)"));
        return;
    }
    const std::string name(decl->at("name").as_string());
    log_event("baseline", name + "/" + math);
    sleep_ms(g_cfg.evaluate_ms);
    json::object timing;
    if (auto* t = req.if_contains("timing"); t && t->is_object())
        timing = t->as_object();
    std::vector<std::string> subset;
    if (auto* c = req.if_contains("cases"); c && c->is_array())
        for (const auto& e : c->as_array())
            subset.emplace_back(e.as_string());

    const bool tf32 = math == "tf32";
    const double median = tf32 ? 25.0 : 50.0;
    const double error = tf32 ? 2e-3 : 1e-6;
    json::array cases;
    json::object medians;
    for (const auto& c : g_cases)
    {
        const auto& co = c.as_object();
        const std::string cname(co.at("name").as_string());
        if (!subset.empty() && std::find(subset.begin(), subset.end(), cname) == subset.end())
            continue;
        const bool perf = co.at("role").as_string() == "performance";
        cases.emplace_back(
            json::object{{"name", cname},
                         {"role", co.at("role")},
                         {"validation",
                          json::object{{"inputs", "stated"},
                                       {"passed", !tf32},
                                       {"max_abs_error", error},
                                       {"max_rel_error", error}}},
                         {"timing", perf ? json::value(timing_json(median, timing)) : json::value(nullptr)},
                         {"timing_failure", nullptr}});
        if (perf)
            medians[cname] = median;
    }
    const bool timed = !medians.empty();
    auto resp = ok(id);
    resp["baseline"] = json::object{{"name", name},
                                    {"kind", kind},
                                    {"math", math},
                                    {"library", json::object{{"name", "fake-cublas"}, {"version", "0"}}},
                                    {"cases", std::move(cases)},
                                    {"case_median_us", std::move(medians)},
                                    {"score_us", timed ? json::value(median) : json::value(nullptr)},
                                    {"within_tolerance", !tf32},
                                    {"max_abs_error", error},
                                    {"max_rel_error", error},
                                    {"environment", json::object{{"gpu", "Fake GPU"}, {"arch", "sm_90"}}},
                                    {"eval_ms", static_cast<double>(g_cfg.evaluate_ms)}};
    send(resp);
}

void handle_hello(const json::object& req)
{
    const json::value& id = req.at("id");
    log_event("hello");
    sleep_ms(g_cfg.hello_ms);
    if (!g_cfg.compile_mode && g_cfg.no_device)
    {
        send(fail(id, "no_device", "no CUDA device (fake_worker --no-device)"));
        return;
    }
    auto resp = ok(id);
    resp["protocol"] = 1;
    resp["mode"] = g_cfg.compile_mode ? "compile" : "gpu";
    resp["worker_version"] = "fake";
    resp["nvrtc_version"] = "fake";
    resp["pid"] = static_cast<int>(::getpid());
    if (g_cfg.unsandboxed_compiles)
        resp["compile_sandbox"] = json::object{
            {"status", "unavailable"}, {"abi", 0}, {"detail", "landlock_create_ruleset: ENOSYS (fake)"}};
    if (!g_cfg.compile_mode)
    {
        resp["driver_version"] = "fake";
        resp["device"] = device_json();
    }
    send(resp);
}

int parse_args(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        auto next = [&]() -> std::string
        {
            if (i + 1 >= argc)
            {
                std::fprintf(stderr, "fake_worker: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--compile")
            g_cfg.compile_mode = true;
        else if (a == "--device")
            g_cfg.device = std::atoi(next().c_str());
        else if (a == "--hello-ms")
            g_cfg.hello_ms = std::atoi(next().c_str());
        else if (a == "--load-ms")
            g_cfg.load_ms = std::atoi(next().c_str());
        else if (a == "--evaluate-ms")
            g_cfg.evaluate_ms = std::atoi(next().c_str());
        else if (a == "--compile-ms")
            g_cfg.compile_ms = std::atoi(next().c_str());
        else if (a == "--log")
            g_cfg.log_path = next();
        else if (a == "--ignore-shutdown")
            g_cfg.ignore_shutdown = true;
        else if (a == "--unsandboxed-compiles")
            g_cfg.unsandboxed_compiles = true;
        else if (a == "--no-device")
            g_cfg.no_device = true;
        else if (a == "--no-cublas")
            g_cfg.no_cublas = true;
        else if (a == "--exit-at-start")
            g_cfg.exit_at_start = std::atoi(next().c_str());
        else if (a == "--cache-dir" || a == "--log-level" || a == "--memory-limit-mib")
            next();
        else if (a == "--no-cache")
            ;
        else
        {
            std::fprintf(stderr, "fake_worker: unknown option '%s'\n", a.c_str());
            return 2;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    if (int rc = parse_args(argc, argv))
        return rc;
    log_event("start", g_cfg.compile_mode ? "compile" : "gpu" + std::to_string(g_cfg.device));
    if (g_cfg.exit_at_start >= 0)
    {
        std::fprintf(stderr, "fake_worker: exiting at start with code %d as asked\n", g_cfg.exit_at_start);
        return g_cfg.exit_at_start;
    }
    if (g_cfg.ignore_shutdown)
        std::signal(SIGTERM, SIG_IGN);
    std::string line;
    while (std::getline(std::cin, line))
    {
        if (line.empty())
            continue;
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (ec || !v.is_object() || !v.as_object().contains("id") || !v.as_object().contains("op") ||
            !v.as_object().at("op").is_string())
        {
            send(fail(nullptr, "bad_request", "malformed request line"));
            continue;
        }
        const auto& req = v.as_object();
        std::string op(req.at("op").as_string());
        try
        {
            if (op == "hello")
                handle_hello(req);
            else if (op == "shutdown")
            {
                log_event("shutdown");
                send(ok(req.at("id")));
                if (g_cfg.ignore_shutdown)
                    continue;
                return 0;
            }
            else if (op == "compile")
                handle_compile(req);
            else if (g_cfg.compile_mode)
                send(fail(req.at("id"), "bad_request", "op '" + op + "' is not available in compile mode"));
            else if (op == "load_workload")
                handle_load(req);
            else if (op == "evaluate")
                handle_evaluate(req);
            else if (op == "time_interleaved")
                handle_interleaved(req);
            else if (op == "baseline")
                handle_baseline(req);
            else if (op == "device_info")
            {
                log_event("device_info");
                auto resp = ok(req.at("id"));
                json::object dev = device_json();
                if (req.contains("measure") && req.at("measure").is_bool() && req.at("measure").as_bool())
                    dev["measured"] =
                        json::object{{"copy_bandwidth_gbps", 4000.0},
                                     {"fp32_tflops", 60.0},
                                     {"measure_ms", 1.0},
                                     {"cold_copy",
                                      json::array{json::object{{"bytes", 2 << 20}, {"gbps", 1000.0}},
                                                  json::object{{"bytes", 1 << 30}, {"gbps", 3800.0}}}}};
                resp["device"] = std::move(dev);
                send(resp);
            }
            else
                send(fail(req.at("id"), "bad_request", "unknown op '" + op + "'"));
        }
        catch (const std::exception& e)
        {
            send(fail(req.at("id"), "internal", e.what()));
        }
    }
    log_event("eof");
    if (g_cfg.ignore_shutdown)
        for (;;)
            sleep_ms(1000);
    return 0;
}
