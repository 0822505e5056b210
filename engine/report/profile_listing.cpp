#include "engine/report/profile_listing.hpp"

#include "engine/profile/profiler.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"

#include <algorithm>
#include <tuple>

namespace warpsmith::report
{

namespace fs = std::filesystem;

std::vector<listed_profile> list_run_profiles(const fs::path& run_dir)
{
    std::vector<listed_profile> out;
    const fs::path dir = run_dir / "profiles";
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return out;
    for (const auto& entry : fs::directory_iterator(dir, ec))
    {
        const fs::path& path = entry.path();
        if (path.extension() != ".json" || !entry.is_regular_file(ec))
            continue;
        try
        {
            const boost::json::value doc = read_json_file(path);
            if (!doc.is_object())
                throw std::invalid_argument("not a JSON object");
            const profile_outcome o = profile_outcome::from_json(doc.get_object());
            const std::string stem = path.stem().string();
            const std::string tail = "-" + o.case_name;
            if (o.case_name.empty() || stem.size() <= tail.size() ||
                stem.compare(stem.size() - tail.size(), tail.size(), tail) != 0)
                throw std::invalid_argument("its name does not end with its case '" + o.case_name + "'");
            listed_profile p;
            p.candidate = stem.substr(0, stem.size() - tail.size());
            p.case_name = o.case_name;
            p.ok = o.ok;
            p.error_kind = o.error_kind;
            p.message = o.message;
            p.summary = o.summary;
            p.wall_ms = o.wall_ms;
            p.document = "profiles/" + path.filename().string();
            const fs::path rep = dir / (stem + ".ncu-rep");
            if (fs::exists(rep, ec))
                p.report = "profiles/" + rep.filename().string();
            out.push_back(std::move(p));
        }
        catch (const std::exception& e)
        {
            log_warn(path.string() + ": not a profile document (" + e.what() + "); left out of the report");
        }
    }
    std::sort(out.begin(),
              out.end(),
              [](const listed_profile& a, const listed_profile& b)
              { return std::tie(a.candidate, a.case_name) < std::tie(b.candidate, b.case_name); });
    return out;
}

const listed_profile* find_profile(const std::vector<listed_profile>& profiles, const std::string& candidate)
{
    for (const auto& p : profiles)
        if (p.candidate == candidate && p.ok)
            return &p;
    return nullptr;
}

}  // namespace warpsmith::report
