#include "agents/llm/feedback.hpp"

#include "agents/llm/prompts.hpp"
#include "agents/llm/tools.hpp"
#include "harness/core/utf8_text.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/candidate.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace warpsmith::llm
{

namespace json = boost::json;

namespace
{

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string plan_text(const launch_plan& p)
{
    auto dims = [](const std::array<expression, 3>& d)
    { return "[" + d[0].text() + ", " + d[1].text() + ", " + d[2].text() + "]"; };
    return "grid " + dims(p.grid) + ", block " + dims(p.block) + ", shared_bytes " + p.shared_bytes.text();
}

std::string excerpt(const std::string& s, std::size_t n)
{
    if (s.size() <= n)
        return s;
    return std::string(utf8_prefix(s, n)) + "...";
}

std::string bytes_text(double b)
{
    if (b >= 1 << 30)
        return fmt("%.1f GiB", b / (1 << 30));
    if (b >= 1 << 20)
        return fmt("%.1f MiB", b / (1 << 20));
    if (b >= 1 << 10)
        return fmt("%.0f KiB", b / (1 << 10));
    return fmt("%.0f B", b);
}

double num(const json::object& o, const char* k)
{
    return lenient::number_or(o, k);
}

}  // namespace

std::string_view to_string(proposal_mode m)
{
    switch (m)
    {
        case proposal_mode::start:
            return "start";
        case proposal_mode::improve:
            return "improve";
        case proposal_mode::repair:
            return "repair";
        case proposal_mode::crossover:
            return "crossover";
    }
    return "improve";
}

std::string render_signature(const workload& w, const std::string& entry)
{
    std::string out = "extern \"C\" __global__ void " + entry + "(";
    for (std::size_t i = 0; i < w.sig.params.size(); ++i)
    {
        const auto& p = w.sig.params[i];
        if (i)
            out += ", ";
        const std::string type(cuda_type_name(p.type));
        if (p.kind == param_kind::scalar)
            out += type + " " + p.name;
        else
            out += (p.dir == buffer_dir::in ? "const " : "") + type + "* __restrict__ " + p.name;
    }
    return out + ")";
}

std::string render_workload(const workload& w)
{
    std::ostringstream o;
    o << "## Workload: " << w.name << "\n";
    if (!w.description.empty())
        o << w.description << "\n";
    o << "\nSignature (the entry must have exactly these parameters):\n    "
      << render_signature(w, w.sig.entry) << "\n";
    bool halfs = false;
    for (const auto& p : w.sig.params)
    {
        if (p.kind != param_kind::buffer)
            continue;
        halfs = halfs || p.type == dtype::float16 || p.type == dtype::bfloat16;
        o << "  " << p.name << ": " << to_string(p.type) << " buffer, " << to_string(p.dir) << ", "
          << p.count.text() << " elements\n";
    }
    if (halfs)
        o << "  (include <cuda_fp16.h> / <cuda_bf16.h> for __half / __nv_bfloat16)\n";
    o << "Tolerance per output element (|got - expected| <= atol + rtol * |expected|):\n";
    for (const auto& p : w.sig.params)
    {
        if (p.kind != param_kind::buffer || p.dir == buffer_dir::in)
            continue;
        const tolerance t = w.tolerance_for(p);
        if (t.exact())
            o << "  " << p.name << ": exact (" << to_string(p.type) << ", compared bit for bit)\n";
        else
            o << "  " << p.name << ": atol " << t.atol << ", rtol " << t.rtol << "\n";
    }
    o << "\nCases (values of the size parameters):\n";
    for (const auto& c : w.cases)
    {
        o << "  " << c.name << " [" << to_string(c.role) << "]:";
        for (const auto& [k, v] : c.values)
            o << " " << k << "=" << v;
        for (const auto& [k, v] : c.float_values)
            o << " " << k << "=" << v;
        o << "\n";
    }
    o << "\nReference kernel (defines correctness; launched with " << plan_text(w.reference.launch)
      << "):\n```cuda\n"
      << excerpt(w.reference.source, 6000) << "\n```\n";
    return o.str();
}

std::string render_device(const json::object& device)
{
    const auto d = device_summary(device);
    if (d.empty())
        return "## Device\n(unknown)\n";
    std::ostringstream o;
    o << "## Device\n";
    if (const auto n = lenient::string_at(d, "name"))
        o << *n;
    if (const auto a = lenient::string_at(d, "arch"))
        o << " (" << *a << ")";
    o << ": " << num(d, "sm_count") << " SMs";
    if (num(d, "clock_mhz") > 0)
        o << " at " << num(d, "clock_mhz") << " MHz";
    o << "; " << bytes_text(num(d, "total_memory_bytes")) << " memory";
    if (num(d, "memory_bus_bits") > 0 && num(d, "memory_clock_mhz") > 0)
        o << " (" << fmt("%.0f", 2 * num(d, "memory_clock_mhz") * 1e6 * num(d, "memory_bus_bits") / 8 / 1e9)
          << " GB/s peak)";
    o << "; L2 " << bytes_text(num(d, "l2_bytes")) << "\n";
    o << "Per SM: " << num(d, "max_threads_per_sm") << " threads, " << num(d, "registers_per_sm")
      << " registers, " << bytes_text(num(d, "shared_memory_per_sm_bytes"))
      << " shared memory. Per block: " << num(d, "max_threads_per_block") << " threads, "
      << bytes_text(num(d, "shared_memory_per_block_bytes")) << " shared memory ("
      << bytes_text(num(d, "shared_memory_per_block_optin_bytes")) << " with opt-in).\n";
    if (const json::object* m = lenient::object_at(d, "measured"))
        o << "Measured: copy bandwidth " << fmt("%.0f", num(*m, "copy_bandwidth_gbps")) << " GB/s, FP32 "
          << fmt("%.1f", num(*m, "fp32_tflops")) << " TFLOP/s.\n";
    return o.str();
}

std::string render_case_times(const evaluated_candidate& c, const feedback_input& in)
{
    std::ostringstream o;
    for (const auto& [name, us] : c.case_median_us)
    {
        o << "    " << name << ": " << fmt("%.2f us", us);
        if (auto it = in.reference_median_us.find(name); it != in.reference_median_us.end() && us > 0)
            o << fmt(" (%.2fx vs reference", it->second / us) << fmt(" %.2f us", it->second);
        else
            o << " (";
        if (auto it = in.initial_median_us.find(name); it != in.initial_median_us.end() && us > 0)
            o << fmt(", %.2fx vs initial", it->second / us);
        o << ")\n";
    }
    return o.str();
}

std::string render_candidate(const evaluated_candidate& c, const feedback_input& in, bool with_source)
{
    std::ostringstream o;
    o << c.id << " (branch " << c.branch << ", iteration " << c.iteration;
    if (c.parent)
        o << ", parent " << *c.parent;
    o << "): ";
    if (c.valid)
        o << "valid, score " << fmt("%.2f us", c.score_us)
          << fmt(", %.2fx vs reference", c.speedup_vs_reference)
          << (c.speedup_vs_initial > 0 ? fmt(", %.2fx vs initial", c.speedup_vs_initial) : std::string())
          << "\n";
    else
        o << "INVALID (" << c.failure_kind << ")\n";
    if (!c.rationale.empty())
        o << "  Rationale: " << excerpt(c.rationale, 600) << "\n";
    o << "  Launch: " << plan_text(c.cand.launch) << "\n";
    for (const auto& [name, plan] : c.cand.overrides)
        o << "  Override for " << name << ": " << plan_text(plan) << "\n";
    if (!c.cand.defines.empty())
    {
        o << "  Defines:";
        for (const auto& [k, v] : c.cand.defines)
            o << " " << k << "=" << v;
        o << "\n";
    }
    if (!c.cand.options.empty())
    {
        o << "  Options:";
        for (const auto& x : c.cand.options)
            o << " " << x;
        o << "\n";
    }
    if (c.compile.compiled)
    {
        const auto& r = c.compile.resources;
        o << "  Resources: " << r.registers << " registers/thread, " << r.static_shared_bytes
          << " B static shared, " << r.stack_frame_bytes << " B stack, spills " << r.spill_stores_bytes << "/"
          << r.spill_loads_bytes << " B (store/load)\n";
    }
    if (c.valid)
        o << "  Per case (median):\n" << render_case_times(c, in);
    else
        o << "  Failure: " << log_excerpt(c.failure_message, 2500) << "\n";
    if (with_source)
        o << "```cuda\n" << c.cand.source << "\n```\n";
    return o.str();
}

std::string render_system_prompt(bool structured, bool tools)
{
    std::string out(prompts::system_role());
    out += "\n\n";
    out += prompts::contract();
    out += "\n\n";
    out += structured ? prompts::answer_json() : prompts::answer_fenced();
    if (tools)
    {
        out += "\n\n";
        out += prompts::tools_note();
    }
    return out;
}

std::string render_user_prompt(const feedback_input& in)
{
    std::ostringstream o;
    o << "[warpsmith task=propose mode=" << to_string(in.mode) << " branch=" << in.branch
      << " iteration=" << in.iteration << "]\n\n";
    switch (in.mode)
    {
        case proposal_mode::start:
            o << prompts::task_start();
            break;
        case proposal_mode::improve:
            o << prompts::task_improve();
            break;
        case proposal_mode::repair:
            o << prompts::task_repair();
            break;
        case proposal_mode::crossover:
            o << prompts::task_crossover();
            break;
    }
    o << "\n";
    if (!in.hint.empty())
        o << "\nAdvice for this round: " << in.hint << "\n";
    o << "\n" << render_workload(*in.work) << "\n" << render_device(in.device) << "\n";

    o << "## Baselines\n";
    for (const auto& [name, us] : in.reference_median_us)
    {
        o << "  " << name << ": reference " << fmt("%.2f us", us);
        if (auto it = in.initial_median_us.find(name); it != in.initial_median_us.end())
            o << ", initial kernel " << fmt("%.2f us", it->second);
        o << "\n";
    }
    if (in.reference_median_us.empty())
        o << "  (not timed yet)\n";

    const bool parent_is_best =
        in.parent && in.best && in.parent->id == in.best->id && in.mode != proposal_mode::start;
    if (in.best)
        o << "\n## Current best"
          << (parent_is_best ? (in.mode == proposal_mode::crossover ? " (first parent)" : " (your parent)")
                             : "")
          << "\n"
          << render_candidate(*in.best, in, parent_is_best || in.mode == proposal_mode::start);
    if (!in.best_profile.empty())
        o << "\n## "
          << (in.best && in.best->id == in.best_profile_id ? "Profile of the current best ("
                                                           : "Profile of an earlier best (")
          << in.best_profile_id << ")\n"
          << in.best_profile;

    if (in.mode == proposal_mode::repair && in.repair_of)
        o << "\n## Your invalid candidate (to repair)\n" << render_candidate(*in.repair_of, in, true);
    if (in.parent && in.mode != proposal_mode::start && !parent_is_best)
        o << "\n## " << (in.mode == proposal_mode::crossover ? "First parent" : "Parent") << "\n"
          << render_candidate(*in.parent, in, true);
    if (in.second_parent)
        o << "\n## Second parent\n" << render_candidate(*in.second_parent, in, true);
    if (in.mode == proposal_mode::start)
    {
        if (in.work->initial)
            o << "\n## Starting point: the initial kernel (launched with "
              << plan_text(in.work->initial->launch) << ")\n```cuda\n"
              << in.work->initial->source << "\n```\n";
        else
            o << "\n## Starting point: the reference kernel above.\n";
    }

    if (!in.recent_failures.empty())
    {
        o << "\n## Recent failures (avoid repeating them)\n";
        for (const auto& f : in.recent_failures)
            o << "- " << f.id << " (branch " << f.branch << ", " << f.failure_kind
              << "): " << excerpt(f.rationale, 200)
              << "\n  Reason: " << excerpt(log_excerpt(f.failure_message, 800), 800) << "\n";
    }
    if (!in.other_branches.empty())
    {
        o << "\n## What the other branches tried most recently\n";
        for (const auto& c : in.other_branches)
        {
            o << "- " << c.id << " (branch " << c.branch << "): ";
            if (c.valid)
                o << fmt("valid, %.2fx vs reference", c.speedup_vs_reference);
            else
                o << "invalid (" << c.failure_kind << ")";
            o << ". " << excerpt(c.rationale, 300) << "\n";
        }
    }
    o << "\nAnswer in the format described in the instructions.";
    return o.str();
}

std::string render_answer_repair(const std::vector<std::string>& problems, bool structured)
{
    std::string list;
    for (const auto& p : problems)
        list += "- " + p + "\n";
    if (!list.empty())
        list.pop_back();
    return prompts::fill_template(
        prompts::answer_repair(),
        {{"problems", list},
         {"format",
          structured ? "Reply with the JSON object only."
                     : "Reply with a ```cuda block and a ```json block (entry, launch, rationale)."}});
}

}  // namespace warpsmith::llm
