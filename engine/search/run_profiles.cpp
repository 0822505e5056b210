#include "engine/search/run_profiles.hpp"

#include "harness/core/json_file.hpp"

#include <boost/json/array.hpp>

namespace warpsmith
{

namespace json = boost::json;
namespace fs = std::filesystem;

run_profiles::run_profiles(nsight_options opts, fs::path profiles_dir)
    : opts_(std::move(opts)), dir_(std::move(profiles_dir))
{
}

bool run_profiles::allowed(int iteration) const
{
    const int cap = opts_.budget >= 0 ? opts_.budget : 2 * (std::max(iteration, 0) + 1);
    return taken_ < cap;
}

fs::path run_profiles::output_base(const std::string& id, const std::string& case_name) const
{
    return dir_ / (id + "-" + case_name);
}

const candidate_profile* run_profiles::find(const std::string& id, const std::string& case_name) const
{
    auto it = done_.find({id, case_name});
    return it == done_.end() ? nullptr : &it->second;
}

const candidate_profile* run_profiles::latest_ok(const std::string& case_name) const
{
    auto it = latest_ok_.find(case_name);
    return it == latest_ok_.end() ? nullptr : find(it->second, case_name);
}

std::optional<profile_outcome> run_profiles::recorded(const std::string& id,
                                                      const std::string& case_name) const
{
    if (!opts_.recorded_profiles)
        return std::nullopt;
    const fs::path doc_path = *opts_.recorded_profiles / (id + "-" + case_name + ".json");
    std::error_code ec;
    if (!fs::exists(doc_path, ec))
        return std::nullopt;
    try
    {
        json::value v = read_json_file(doc_path);
        if (!v.is_object())
            return std::nullopt;
        profile_outcome out = profile_outcome::from_json(v.get_object());
        out.case_name = case_name;
        out.wall_ms = 0;  // a replay spends no time on it
        return out;
    }
    catch (const std::exception&)
    {
        return std::nullopt;
    }
}

const candidate_profile& run_profiles::record(const std::string& id,
                                              const profile_outcome& outcome,
                                              bool from_recording)
{
    candidate_profile p;
    p.candidate_id = id;
    p.case_name = outcome.case_name;
    p.ok = outcome.ok && outcome.summary;
    p.text = p.ok ? outcome.summary->render_for_model() : "no profile of " + id + ": " + outcome.message;
    if (!from_recording)
    {
        ++taken_;
        wall_ms_ += outcome.wall_ms;
    }
    failed_ += p.ok ? 0 : 1;
    json::object item{{"candidate", id},
                      {"case", outcome.case_name},
                      {"ok", p.ok},
                      {"wall_ms", outcome.wall_ms},
                      {"from_recording", from_recording}};
    if (p.ok)
    {
        item["report"] = id + "-" + outcome.case_name + ".ncu-rep";
        item["summary"] = id + "-" + outcome.case_name + ".json";
    }
    else
    {
        item["error_kind"] = outcome.error_kind;
        item["message"] = outcome.message;
        // A failed profile leaves a document too, so that a replay meets the same failure.
        if (!from_recording)
        {
            std::error_code ec;
            fs::create_directories(dir_, ec);
            write_json_file(output_base(id, outcome.case_name).string() + ".json", outcome.to_json());
        }
    }
    items_.push_back(std::move(item));
    if (p.ok)
        latest_ok_[outcome.case_name] = id;
    return done_[{id, outcome.case_name}] = std::move(p);
}

candidate_profile run_profiles::refusal(const std::string& id, const std::string& case_name, std::string why)
{
    candidate_profile p;
    p.candidate_id = id;
    p.case_name = case_name;
    p.text = std::move(why);
    return p;
}

json::object run_profiles::summary_json() const
{
    json::array items;
    for (const json::object& i : items_)
        items.push_back(i);
    return json::object{{"enabled", opts_.enabled},
                        {"budget", opts_.budget},
                        {"taken", taken_},
                        {"failed", failed_},
                        {"wall_seconds", wall_ms_ / 1000},
                        {"items", std::move(items)}};
}

}  // namespace warpsmith
