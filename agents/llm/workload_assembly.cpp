#include "agents/llm/workload_assembly.hpp"

#include "agents/llm/inference.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/file_names.hpp"

namespace warpsmith::llm
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

json::object read_object(const std::string& path, const char* what)
{
    auto v = read_json_file(path);
    if (!v.is_object())
        throw user_error(path + ": " + what + " must be a JSON object");
    return std::move(v.get_object());
}

}  // namespace

assembled_workload assemble_workload(const workload_sources& s, const infer_parts_function& infer)
{
    json::object wj;
    fs::path dir = fs::current_path();
    std::string origin = "the workload";
    if (!s.workload.empty())
    {
        wj = workload::load(s.workload).to_json().get_object();
        origin = s.workload;
    }
    else if (!s.signature.empty())
    {
        auto sig = read_object(s.signature, "--signature");
        dir = fs::absolute(s.signature).parent_path().lexically_normal();
        origin = s.signature;
        if (sig.contains("signature"))
            wj = std::move(sig);  // a partial workload.json
        else
        {
            wj["signature"] = std::move(sig);
            // A signature file may also carry the launch plan and tolerance the workload needs.
            for (const char* k : {"launch", "tolerance", "name", "description"})
                if (const json::value* x = lenient::value_at(wj["signature"], k))
                {
                    json::value moved = *x;
                    wj["signature"].get_object().erase(k);
                    wj[k] = std::move(moved);
                }
        }
        anchor_file_names(wj, dir, s.signature_scope, s.signature);
    }
    else if (!s.description.empty() && s.model_provider)
        origin = "the workload inferred from --description";
    else if (!s.description.empty())
        throw user_error(
            "inferring a workload from --description requires a model provider (--provider openai, "
            "openai-chat or replay); give --workload DIR (or --signature, --input-cases and --reference)");
    else
        throw user_error(
            "nothing to optimize: give --workload DIR (or --signature, --input-cases and --reference)");

    if (!s.input_cases.empty())
    {
        auto cv = read_json_file(s.input_cases);
        if (const json::value* cases = lenient::value_at(cv, "cases"))
            cv = json::value(*cases);
        if (!cv.is_array())
            throw user_error(s.input_cases +
                             ": --input-cases must be a JSON array of cases or {\"cases\": [...]}");
        dir = fs::absolute(s.input_cases).parent_path().lexically_normal();
        json::object cases_part{{"cases", std::move(cv)}};
        anchor_file_names(cases_part, dir, s.input_cases_scope, s.input_cases);
        wj["cases"] = std::move(cases_part["cases"]);
    }
    std::optional<std::string> supplied;
    if (!s.reference.empty())
    {
        supplied = read_text_file(s.reference);
        wj.erase("reference");
        wj["reference_source"] = *supplied;
    }
    if (!s.initial_kernel.empty())
    {
        wj.erase("initial");
        wj.erase("initial_entry");
        wj.erase("initial_launch");
        wj["initial_source"] = read_text_file(s.initial_kernel);
        // best.json (or any <stem>.json) next to the kernel carries its entry and launch plan.
        auto sidecar = fs::path(s.initial_kernel).replace_extension(".json");
        std::error_code ec;
        if (fs::exists(sidecar, ec))
        {
            const auto side = read_object(sidecar.string(), "the kernel's sidecar");
            if (const json::value* e = lenient::value_at(side, "entry"))
                wj["initial_entry"] = *e;
            if (const json::value* l = lenient::value_at(side, "launch"))
                wj["initial_launch"] = *l;
        }
    }
    if (!s.description.empty())
        wj["description"] = s.description;
    if (s.workload.empty() && !s.description.empty() && s.model_provider &&
        (!missing_parts(wj).empty() || !wj.contains("launch")))
        wj = infer(std::move(wj), dir);
    if (!wj.contains("name"))
        wj["name"] = "workload";
    if (!wj.contains("launch"))
        throw user_error(origin +
                         ": the workload has no launch plan ('launch'); give it in the --signature file");
    if (!wj.contains("reference") && !wj.contains("reference_source"))
        throw user_error(
            "no reference kernel: give --reference FILE.cu (inferring one needs a model provider)");
    if (!wj.contains("cases"))
        throw user_error("no cases: give --input-cases FILE.json (inferring them needs a model provider)");
    // Every file name in wj was resolved by anchor_file_names under its own file's scope.
    return {workload::from_json(wj, dir, origin, file_scope::resolved), supplied};
}

}  // namespace warpsmith::llm
