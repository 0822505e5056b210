#include "engine/cli/kernel_args.hpp"

#include "engine/cli/kernel_entry.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <optional>

namespace warpsmith
{

namespace json = boost::json;
namespace fs = std::filesystem;

std::map<std::string, std::int64_t> parse_defines(const std::vector<std::string>& defines)
{
    std::map<std::string, std::int64_t> out;
    for (const auto& d : defines)
    {
        auto eq = d.find('=');
        std::string name = d.substr(0, eq);
        std::string value = eq == std::string::npos ? "1" : d.substr(eq + 1);
        if (name.empty())
            throw user_error("-D " + d + ": expected NAME=V");
        try
        {
            std::size_t used = 0;
            long long v = std::stoll(value, &used, 0);
            if (used != value.size())
                throw std::invalid_argument(value);
            out[name] = v;
        }
        catch (const std::exception&)
        {
            throw user_error("-D " + d +
                             ": the value must be an integer (defines are visible to launch expressions)");
        }
    }
    return out;
}

void apply_launch_file(candidate& cand, const std::string& path)
{
    json::value v = read_json_file(path);
    if (!v.is_object())
        throw user_error(path + ": expected a JSON object (a launch plan)");
    // A file people write (document style): "plan.json: defines.TILE: must be an integer, got 1.5".
    try
    {
        const json_reader r(v, json_location(path));
        if (!r.find("launch"))
        {
            cand.launch = launch_plan::from_json(v, path);
            return;
        }
        cand.launch = launch_plan::from_json(r.require("launch"), path + ": launch");
        if (const auto ov = r.optional_nested("overrides"))
            for (const auto& kv : ov->object())
                cand.overrides[std::string(kv.key())] =
                    launch_plan::from_json(kv.value(), path + ": overrides." + std::string(kv.key()));
        if (const auto dv = r.optional_nested("defines"))
            for (const auto& kv : dv->object())
                cand.defines[std::string(kv.key())] = dv->require_int64(kv.key());
    }
    catch (const json_error& e)
    {
        throw user_error(e.what());
    }
}

void kernel_args::add_to(CLI::App& cmd, const std::string& kernel_help)
{
    cmd.add_option("--kernel", kernel, kernel_help)->required();
    cmd.add_option("--entry",
                   entry,
                   "Entry point (default: the only extern \"C\" __global__ function, else the workload's)");
    cmd.add_option(
        "--launch",
        launch,
        "Launch plan JSON {grid, block, shared_bytes}, or {launch, overrides, defines} "
        "(default: the workload's launch; the initial kernel's own launch for the initial kernel)");
    cmd.add_option("-D,--define", defines, "Integer define NAME=V, also visible to launch expressions");
    cmd.add_option("--option", options, "Allow-listed NVRTC option (repeatable; --option=--use_fast_math)");
}

candidate kernel_args::make_candidate(const workload& w) const
{
    candidate cand;
    cand.source = read_text_file(kernel);
    cand.entry = choose_entry(
        cand.source, entry.empty() ? std::nullopt : std::optional<std::string>(entry), kernel, w.sig.entry);
    // The workload's initial kernel comes with its own launch plan; any other kernel defaults to
    // the workload's launch.
    cand.launch = w.initial && w.initial->source == cand.source ? w.initial->launch : w.launch;
    if (!launch.empty())
        apply_launch_file(cand, launch);
    for (auto& [k, v] : parse_defines(defines))
        cand.defines[k] = v;
    cand.options = options;
    if (std::string problem = cand.validate(w); !problem.empty())
        throw user_error(kernel + ": " + problem);
    return cand;
}

std::string kernel_args::candidate_name() const
{
    std::string name = fs::path(kernel).stem().string();
    if (name.empty() || name == "reference" || name == "initial")
        name = "candidate";
    return name;
}

}  // namespace warpsmith
