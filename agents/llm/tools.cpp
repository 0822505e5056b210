#include "agents/llm/tools.hpp"

#include "agents/llm/architecture_notes.hpp"
#include "agents/llm/kernel_contract.hpp"
#include "harness/compile/compile_options.hpp"
#include "harness/core/data_directory.hpp"
#include "harness/core/secret_redaction.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace warpsmith::llm
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

json::object object_schema(json::object properties, json::array required)
{
    return json::object{{"type", "object"},
                        {"properties", std::move(properties)},
                        {"required", std::move(required)},
                        {"additionalProperties", false}};
}

std::string error_result(const std::string& message)
{
    return json::serialize(json::object{{"error", message}});
}

}  // namespace

std::vector<tool_definition> kernel_tool_definitions(bool nvidia_docs, bool profile)
{
    std::vector<tool_definition> out;
    out.push_back(
        {"gpu_properties",
         "Properties of the GPU the kernels run on: name, architecture, SM count, shared memory per "
         "block and per SM, registers, L2 size, memory bandwidth figures, clocks.",
         object_schema(json::object{}, json::array{})});
    out.push_back(
        {"compile",
         "Compile a kernel with NVRTC for the target GPU, without running it. Returns whether it compiled, "
         "the "
         "compiler log (errors and warnings) and the resource usage of the entry: registers per thread, "
         "spill "
         "bytes, static shared memory, local memory. Use it to check a risky change before proposing it.",
         object_schema(
             json::object{
                 {"kernel_source",
                  json::object{{"type", "string"}, {"description", "Complete CUDA device code."}}},
                 {"entry",
                  json::object{{"type", "string"}, {"description", "The extern \"C\" __global__ function."}}},
                 {"compile_options",
                  json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}}},
                 {"defines",
                  json::object{{"type", "array"},
                               {"items",
                                object_schema(json::object{{"name", json::object{{"type", "string"}}},
                                                           {"value", json::object{{"type", "integer"}}}},
                                              json::array{"name", "value"})}}}},
             json::array{"kernel_source", "entry"})});
    out.push_back(
        {"history",
         "An earlier candidate of this search by id (e.g. \"c0007\"): its source, launch plan, defines, "
         "per-case median times and speedups, resource usage, or why it failed.",
         object_schema(json::object{{"id", json::object{{"type", "string"}}}}, json::array{"id"})});
    if (nvidia_docs)
        out.push_back(
            {"nvidia_docs",
             "Guidance notes on CUDA kernel optimization: general topics and one on this GPU's "
             "architecture (topic \"architecture\": occupancy limits, shared memory, tensor core "
             "instructions, async copies). Call with topic \"index\" for the list of topics.",
             object_schema(json::object{{"topic", json::object{{"type", "string"}}}}, json::array{"topic"})});
    if (profile)
        out.push_back(
            {"profile",
             "Nsight Compute hardware counters of one valid candidate of this search on one performance "
             "case: "
             "speed-of-light compute and memory %, DRAM/L2/L1 throughput and hit rates, achieved and "
             "theoretical occupancy and what limits it, registers, spills, the top warp-stall reasons and "
             "Nsight Compute's own hints. Profiles are limited per run; each takes a few seconds.",
             object_schema(
                 json::object{
                     {"id", json::object{{"type", "string"}, {"description", "Candidate id, e.g. c0007."}}},
                     {"case",
                      json::object{{"type", "string"},
                                   {"description", "A performance case; empty for the largest."}}}},
                 json::array{"id", "case"})});
    return out;
}

json::object device_summary(const json::object& device)
{
    json::object out;
    for (const char* k : {"name",
                          "arch",
                          "compute_capability",
                          "sm_count",
                          "total_memory_bytes",
                          "l2_bytes",
                          "shared_memory_per_block_bytes",
                          "shared_memory_per_block_optin_bytes",
                          "shared_memory_per_sm_bytes",
                          "registers_per_block",
                          "registers_per_sm",
                          "max_threads_per_block",
                          "max_threads_per_sm",
                          "warp_size",
                          "clock_mhz",
                          "memory_clock_mhz",
                          "memory_bus_bits",
                          "measured"})
        if (const auto* v = lenient::value_at(device, k))
            out[k] = *v;
    return out;
}

json::object candidate_details(const evaluated_candidate& c,
                               const std::map<std::string, double>& reference_us)
{
    json::object cases;
    for (const auto& [name, us] : c.case_median_us)
    {
        json::object e{{"median_us", us}};
        if (auto it = reference_us.find(name); it != reference_us.end() && us > 0)
            e["speedup_vs_reference"] = it->second / us;
        cases[name] = std::move(e);
    }
    json::object defines;
    for (const auto& [k, v] : c.cand.defines)
        defines[k] = v;
    json::array options;
    for (const auto& o : c.cand.options)
        options.push_back(json::value(o));
    json::object out{{"id", c.id},
                     {"branch", c.branch},
                     {"iteration", c.iteration},
                     {"parent", c.parent ? json::value(*c.parent) : json::value(nullptr)},
                     {"rationale", c.rationale},
                     {"valid", c.valid},
                     {"entry", c.cand.entry},
                     {"launch", c.cand.launch.to_json()},
                     {"defines", std::move(defines)},
                     {"compile_options", std::move(options)},
                     {"resources", c.compile.resources.to_json()},
                     {"kernel_source", c.cand.source}};
    if (c.valid)
    {
        out["score_us"] = c.score_us;
        out["speedup_vs_reference"] = c.speedup_vs_reference;
        out["cases"] = std::move(cases);
    }
    else
        out["failure"] =
            json::object{{"kind", c.failure_kind}, {"message", log_excerpt(c.failure_message, 3000)}};
    return out;
}

std::string log_excerpt(const std::string& raw_log, std::size_t max_bytes)
{
    // Every compile log and failure message a model sees passes through here: no secret reaches it.
    std::string log = redact_secrets(raw_log);
    if (log.size() <= max_bytes)
        return log;
    // Error lines first (with the line after each: NVRTC prints the offending source there), then
    // the rest in order, until the budget is spent.
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    std::vector<bool> taken(lines.size(), false);
    std::string out;
    auto take = [&](std::size_t i)
    {
        if (i >= lines.size() || taken[i] || out.size() + lines[i].size() + 1 > max_bytes)
            return;
        taken[i] = true;
        out += lines[i] + "\n";
    };
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find("error") != std::string::npos)
        {
            take(i);
            take(i + 1);
        }
    for (std::size_t i = 0; i < lines.size(); ++i)
        take(i);
    return out + "[log excerpt: " + std::to_string(out.size()) + " of " + std::to_string(log.size()) +
           " bytes]";
}

fs::path default_guidance_dir()
{
    if (const char* d = std::getenv("WARPSMITH_GUIDANCE_DIR"); d && *d)
        return d;
    std::error_code ec;
    if (const auto data = data_directory(); data && fs::is_directory(*data / "guidance", ec))
        return *data / "guidance";
    // A binary carried away from its tree (scripts/gpu-carry) runs from a source checkout.
    return fs::absolute("docs/guidance", ec);
}

std::vector<std::string> guidance_topics(const fs::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".md" && e.path().stem() != "README")
            out.push_back(e.path().stem().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<std::string> guidance_text(const fs::path& dir, const std::string& topic)
{
    for (const auto& t : guidance_topics(dir))
        if (t == topic)
        {
            std::ifstream f(dir / (t + ".md"));
            std::stringstream ss;
            ss << f.rdbuf();
            return ss.str();
        }
    return std::nullopt;
}

std::optional<std::string> architecture_guidance(const fs::path& dir, const json::object& device)
{
    const auto cc = compute_capability_of(device);
    const auto* note = cc ? architecture_note_for(*cc) : nullptr;
    if (!note)
        return std::nullopt;
    std::ifstream f(dir / "architectures" / (std::string(note->stem) + ".md"));
    if (!f)
        return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    return "(The note on " + std::string(note->family) + ", " + note->stem +
           ", chosen for this GPU's compute capability " + cc->text() + ".)\n\n" + ss.str();
}

boost::asio::awaitable<std::string> kernel_tools::execute(const tool_call& call)
{
    boost::system::error_code ec;
    json::value args = call.arguments.empty() ? json::value(json::object{}) : json::parse(call.arguments, ec);
    if (ec || !args.is_object())
        co_return error_result("the arguments of " + call.name + " must be a JSON object" +
                               (ec ? " (" + ec.message() + ")" : ""));
    const auto& a = args.get_object();
    auto str = [&](const char* key) { return lenient::string_at(a, key); };

    if (call.name == "gpu_properties")
        co_return json::serialize(device_summary(ctx_.device));

    if (call.name == "history")
    {
        const auto id = str("id");
        if (!id)
            co_return error_result("history needs {\"id\": \"cNNNN\"}");
        if (ctx_.history)
            for (const auto& c : *ctx_.history)
                if (c.id == *id)
                    co_return json::serialize(candidate_details(c, ctx_.reference_median_us));
        std::string known;
        if (ctx_.history)
            for (const auto& c : *ctx_.history)
                known += (known.empty() ? "" : ", ") + c.id;
        co_return error_result(
            "no evaluated candidate '" + *id + "'" +
            (known.empty() ? " (none has been evaluated yet)" : " (known: " + known + ")"));
    }

    if (call.name == "compile")
    {
        const auto source = str("kernel_source");
        const auto entry = str("entry");
        if (!source || !entry)
            co_return error_result("compile needs kernel_source and entry (strings)");
        if (auto too_large = kernel_source_too_large(*source))
            co_return error_result(*too_large);
        if (!ctx_.services)
            co_return error_result("compiling is not available here");
        compile_request req;
        req.source = *source;
        req.entry = *entry;
        req.name = "tool-compile.cu";
        const json::array* listed_options = lenient::array_at(a, "compile_options");
        const json::array* listed_defines = lenient::array_at(a, "defines");
        if ((listed_options && listed_options->size() > max_listed_options) ||
            (listed_defines && listed_defines->size() > max_listed_options))
            co_return error_result("compile takes at most " + std::to_string(max_listed_options) +
                                   " compile_options and as many defines");
        if (const json::array* o = listed_options)
            for (const auto& x : *o)
                if (x.is_string())
                    req.options.emplace_back(x.get_string());
        if (auto bad = check_compile_options(req.options))
            co_return error_result("compile_options: " + *bad);
        std::map<std::string, std::int64_t> defines;
        if (const json::array* d = listed_defines)
            for (const auto& x : *d)
            {
                const auto n = lenient::string_at(x, "name");
                const json::value* v = lenient::value_at(x, "value");
                if (n && v && v->is_int64())
                    defines[*n] = v->get_int64();
            }
        for (auto& o : define_options(defines))
            req.options.push_back(std::move(o));
        if (!ctx_.arch.empty())
            req.arch = ctx_.arch;
        const auto out = co_await ctx_.services->compile(std::move(req));
        json::array entries;
        for (const auto& e : out.entries)
            entries.push_back(json::value(e));
        co_return json::serialize(json::object{{"compiled", out.compiled},
                                               {"error", redact_secrets(out.error)},
                                               {"entries", std::move(entries)},
                                               {"resources", out.resources.to_json()},
                                               {"log", log_excerpt(out.log)}});
    }

    if (call.name == "profile" && ctx_.profile && ctx_.services)
    {
        const auto id = str("id");
        if (!id)
            co_return error_result("profile needs id (a candidate id such as c0007)");
        candidate_profile p = co_await ctx_.services->profile(*id, str("case").value_or(""));
        if (!p.ok)
            co_return error_result(p.text);
        co_return json::serialize(
            json::object{{"id", p.candidate_id}, {"case", p.case_name}, {"profile", p.text}});
    }

    if (call.name == "nvidia_docs" && ctx_.nvidia_docs)
    {
        const auto topic = str("topic").value_or("index");
        const auto topics = guidance_topics(ctx_.guidance_dir);
        const auto arch = architecture_guidance(ctx_.guidance_dir, ctx_.device);
        json::array list;
        if (arch)
            list.push_back(json::value("architecture"));
        for (const auto& t : topics)
            list.push_back(json::value(t));
        if (topic == "architecture" && arch)
            co_return json::serialize(json::object{{"topic", topic}, {"text", *arch}});
        if (topic != "index")
            if (auto text = guidance_text(ctx_.guidance_dir, topic))
                co_return json::serialize(json::object{{"topic", topic}, {"text", *text}});
        co_return json::serialize(json::object{
            {"topics", std::move(list)},
            {"note",
             topic == "index" ? "call again with one of these topics" : "unknown topic '" + topic + "'"}});
    }
    co_return error_result("unknown tool '" + call.name + "'");
}

}  // namespace warpsmith::llm
