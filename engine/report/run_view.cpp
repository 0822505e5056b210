#include "engine/report/run_view.hpp"

#include "agents/autotune/roofline.hpp"
#include "engine/run/journal.hpp"
#include "engine/run/run_directory.hpp"
#include "engine/run/run_replay.hpp"
#include "engine/search/scoring.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"
#include "harness/workload/workload.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace warpsmith::report
{

namespace fs = std::filesystem;
namespace json = boost::json;
using lenient::array_at;
using lenient::bool_at;
using lenient::number_at;
using lenient::numbers_at;
using lenient::object_at;
using lenient::string_at;

std::optional<double> parse_utc_ms(std::string_view text)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
    const std::string t(text);
    const int n = std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &y, &mo, &d, &h, &mi, &s, &ms);
    if (n < 6)
        return std::nullopt;
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    const std::time_t secs = ::timegm(&tm);
    return static_cast<double>(secs) * 1000.0 + (n == 7 ? ms : 0);
}

std::vector<std::string> run_view::performance_cases() const
{
    std::vector<std::string> out;
    for (const auto& c : cases)
        if (c.performance)
            out.push_back(c.name);
    return out;
}

const report_candidate* run_view::find(std::string_view id) const
{
    for (const auto& c : candidates)
        if (c.id() == id)
            return &c;
    return nullptr;
}

std::map<std::string, double> run_view::best_medians() const
{
    if (summary)
    {
        const auto* best = object_at(&*summary, "best");
        if (auto m = numbers_at(object_at(best, "confirmation"), "case_median_us"); !m.empty())
            return m;
        if (auto m = numbers_at(best, "case_median_us"); !m.empty())
            return m;
    }
    if (!best_id)
        return {};
    if (*best_id == "initial")
        return initial_medians();
    if (const auto* c = find(*best_id))
        return c->rec.ec.case_median_us;
    return {};
}

namespace
{

/// A journal's evaluation result; one line naming where, when it does not have the protocol's shape.
protocol::evaluation_result result_at(const json::value& v, const std::string& where)
{
    try
    {
        return protocol::evaluation_result::from_json(v);
    }
    catch (const protocol::format_error& e)
    {
        throw user_error(where + ": result." + e.what());
    }
}

std::map<std::string, double> first_medians(const std::map<int, baseline_timing>& per_gpu)
{
    for (const auto& [gpu, b] : per_gpu)
        if (gpu >= 0 && b.valid && !b.medians.empty())
            return b.medians;
    return {};
}

}  // namespace

std::map<std::string, double> run_view::reference_medians() const
{
    return first_medians(reference);
}

std::map<std::string, double> run_view::initial_medians() const
{
    return first_medians(initial);
}

std::string run_view::strategy_label() const
{
    const auto* config = object_at(&run_json, "config");
    auto provider = string_at(object_at(config, "provider"), "name").value_or("");
    const auto tune = string_at(object_at(config, "tune"), "strategy");
    if (tune)
        return (provider.empty() ? std::string("autotune") : provider) + "/" + *tune;
    return provider;
}

run_view build_run_view(run_files files)
{
    run_view v;
    v.dir = files.dir;
    v.name = files.dir.filename().string();
    if (files.run_json)
        v.run_json = std::move(*files.run_json);
    v.summary = std::move(files.summary);
    v.tune_curve = std::move(files.tune_curve);
    v.best_source = std::move(files.best_source);
    v.journal_torn = files.journal_torn;

    if (files.workload_json)
    {
        const auto* w = &*files.workload_json;
        v.workload_name = string_at(w, "name").value_or("");
        v.workload_description = string_at(w, "description").value_or("");
        if (const auto* cases = array_at(w, "cases"))
            for (const auto& c : *cases)
            {
                const auto* co = object_at(&c);
                if (!co)
                    continue;
                v.cases.push_back(case_info{string_at(co, "name").value_or("?"),
                                            string_at(co, "role").value_or("") == "performance"});
            }
    }

    // One pass over the journal: the replay folds candidates (the same fold --resume uses), and
    // baselines are tracked alongside so that each candidate keeps the reference it was compared to.
    run_replay replay;
    std::map<int, std::map<std::string, double>> ref_now;
    std::map<std::string, std::map<std::string, double>> ref_of;
    std::map<std::string, double> evaluated_at;
    std::optional<double> t0, t_last;
    std::optional<json::object> journal_confirmation;
    std::optional<std::string> journal_winner;
    std::string journal_status, journal_reason;
    for (const auto& ev : files.events)
    {
        replay.apply(ev);
        const auto type = string_at(&ev, "event").value_or("");
        const auto t = parse_utc_ms(string_at(&ev, "time").value_or(""));
        if (t)
        {
            if (!t0)
                t0 = t;
            t_last = t;
        }
        if (type == "run_started")
        {
            journal_status.clear();
            journal_reason.clear();
        }
        else if (type == "baseline")
        {
            baseline_timing b;
            b.valid = bool_at(&ev, "valid").value_or(false);
            b.score_us = number_at(&ev, "score_us");
            b.medians = numbers_at(&ev, "case_median_us");
            // null: an initial kernel that did not compile has no result (search_baselines.cpp).
            if (const auto* r = lenient::value_at(&ev, "result"); r && !r->is_null())
                b.result = result_at(*r, "journal: baseline " + string_at(&ev, "key").value_or("?"));
            const int gpu = static_cast<int>(number_at(&ev, "gpu").value_or(-1));
            const auto key = string_at(&ev, "key").value_or("");
            if (key == "reference")
            {
                if (b.valid)
                    ref_now[gpu] = b.medians;
                v.reference[gpu] = std::move(b);
            }
            else if (key == "initial")
                v.initial[gpu] = std::move(b);
        }
        else if (type == "evaluated")
        {
            const auto id = string_at(&ev, "id").value_or("");
            const int gpu = static_cast<int>(number_at(&ev, "gpu").value_or(-1));
            if (auto it = ref_now.find(gpu); it != ref_now.end())
                ref_of[id] = it->second;
            if (t && t0)
                evaluated_at[id] = (*t - *t0) / 1000.0;
        }
        else if (type == "confirmation")
            journal_confirmation = ev;
        else if (type == "run_finished")
        {
            journal_status = string_at(&ev, "status").value_or("");
            journal_reason = string_at(&ev, "reason").value_or("");
            journal_winner = string_at(&ev, "winner");
        }
    }
    auto state = replay.take();
    v.finished = state.finished;
    v.usage = state.usage;
    v.sessions = state.starts;
    if (t0 && t_last)
        v.elapsed_seconds = (*t_last - *t0) / 1000.0;

    std::map<std::size_t, int> order;
    for (std::size_t k = 0; k < state.evaluation_order.size(); ++k)
        order[state.evaluation_order[k]] = static_cast<int>(k) + 1;
    for (std::size_t i = 0; i < state.candidates.size(); ++i)
    {
        report_candidate c;
        c.rec = std::move(state.candidates[i]);
        if (auto it = order.find(i); it != order.end())
            c.evaluation_index = it->second;
        if (auto it = ref_of.find(c.id()); it != ref_of.end())
            c.reference_medians = it->second;
        if (auto it = evaluated_at.find(c.id()); it != evaluated_at.end())
            c.evaluated_at_s = it->second;
        v.candidates.push_back(std::move(c));
    }

    const json::object* s = v.summary ? &*v.summary : nullptr;
    if (s)
    {
        v.status = string_at(s, "status").value_or("");
        v.stop_reason = string_at(s, "stop_reason").value_or("");
        if (const auto* best = object_at(s, "best"))
        {
            v.best_id = string_at(best, "id");
            v.best_decided_by = string_at(best, "decided_by").value_or("");
        }
        v.wall_seconds = number_at(s, "wall_seconds");
        v.gpu_busy_fraction = number_at(s, "gpu_busy_fraction");
        if (const auto* c = object_at(s, "confirmation"))
            v.confirmation = *c;
        if (const auto* r = object_at(s, "roofline"))
            v.roofline = *r;
        if (const auto* b = object_at(s, "baselines"))
            v.baselines = *b;
        // A summary from an earlier session is stale when the journal goes on after it.
        if (!v.finished && v.status == "finished")
            v.status = "incomplete";
    }
    if (v.status.empty())
        v.status = v.finished ? journal_status : "incomplete";
    if (v.stop_reason.empty())
        v.stop_reason = v.finished ? journal_reason : "";
    if (!v.confirmation && journal_confirmation)
        v.confirmation = journal_confirmation;
    if (!v.best_id && v.finished && journal_winner)
        v.best_id = journal_winner;
    // A finished run's summary without a best means there is none (e.g. no candidate survived the
    // confirmation): never promote an unconfirmed candidate in its place.
    if (!v.best_id && !(s && v.finished))
    {
        // No summary (an interrupted or running run): the best so far by the engine's ranking.
        const report_candidate* best = nullptr;
        for (const auto& c : v.candidates)
            if (c.valid() && c.rec.ec.score_us > 0 && (!best || better_candidate(c.rec.ec, best->rec.ec)))
                best = &c;
        if (best)
        {
            v.best_id = best->id();
            v.best_decided_by = "search";
        }
    }
    if (v.workload_name.empty())
        v.workload_name = s ? string_at(s, "workload").value_or("") : "";
    if (v.cases.empty())
    {
        // Without workload.json the performance cases are those any candidate was timed on.
        std::map<std::string, bool> seen;
        for (const auto& c : v.candidates)
            for (const auto& [k, m] : c.rec.ec.case_median_us)
                if (!seen[k])
                {
                    seen[k] = true;
                    v.cases.push_back(case_info{k, true});
                }
    }
    if (!v.best_source && v.best_id)
    {
        if (const auto* c = v.find(*v.best_id))
            v.best_source = c->rec.ec.cand.source;
    }
    return v;
}

namespace
{

std::optional<json::object> read_object_if_present(const fs::path& p)
{
    std::error_code ec;
    if (!fs::exists(p, ec))
        return std::nullopt;
    try
    {
        auto v = read_json_file(p);
        if (v.is_object())
            return std::move(v.get_object());
        log_warn(p.string() + ": not a JSON object; ignored in the report");
    }
    catch (const std::exception& e)
    {
        log_warn(std::string(e.what()) + "; ignored in the report");
    }
    return std::nullopt;
}

/// The roofline of the best kernel, computed as `warpsmith tune` does (docs/autotune.md,
/// "Roofline"), for runs whose summary has none (optimize runs).
std::optional<json::object> compute_roofline(const run_view& v)
{
    std::optional<autotune::roofline_spec> spec;
    std::optional<workload> w;
    try
    {
        w = workload::load(v.dir / "workload" / "workload.json", file_scope::self_contained);
        const auto local = v.dir / "workload" / "roofline.json";
        std::error_code ec;
        if (fs::exists(local, ec))
            spec = autotune::roofline_spec::load(local);
        if (!spec)
        {
            // The workload the run was started from: run.json config.workload.workload.
            const auto* config = object_at(&v.run_json, "config");
            const auto orig = string_at(object_at(config, "workload"), "workload");
            if (orig && !orig->empty())
            {
                fs::path dir = *orig;
                if (fs::is_regular_file(dir, ec))
                    dir = dir.parent_path();
                if (fs::exists(dir / "roofline.json", ec))
                    spec = autotune::roofline_spec::load(dir / "roofline.json");
            }
        }
    }
    catch (const std::exception& e)
    {
        log_debug(std::string("report: no roofline: ") + e.what());
        return std::nullopt;
    }
    if (!spec || !w)
        return std::nullopt;
    const auto* devices = array_at(&v.run_json, "devices");
    if (!devices || devices->empty() || !devices->front().is_object())
        return std::nullopt;
    try
    {
        auto r = autotune::roofline_summary(*spec, *w, devices->front().get_object(), v.best_medians());
        r["computed_by"] = "report";
        return r;
    }
    catch (const std::exception& e)
    {
        log_debug(std::string("report: no roofline: ") + e.what());
        return std::nullopt;
    }
}

}  // namespace

run_view load_run_view(const fs::path& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw user_error(dir.string() + ": no such run directory");
    if (!fs::exists(dir / "journal.jsonl", ec))
        throw user_error(dir.string() + ": not a warpsmith run directory (journal.jsonl is missing)");
    check_run_has_no_symlinks(dir, "report");
    run_files f;
    f.dir = fs::absolute(dir).lexically_normal();
    if (f.dir.filename().empty())
        f.dir = f.dir.parent_path();
    auto journal = read_journal(dir / "journal.jsonl");
    f.events = std::move(journal.events);
    f.journal_torn = journal.torn_tail;
    f.run_json = read_object_if_present(dir / "run.json");
    f.summary = read_object_if_present(dir / "summary.json");
    f.workload_json = read_object_if_present(dir / "workload" / "workload.json");
    f.tune_curve = read_object_if_present(dir / "tune_curve.json");
    if (fs::exists(dir / "best.cu", ec))
    {
        try
        {
            f.best_source = read_text_file(dir / "best.cu");
        }
        catch (const std::exception&)
        {
        }
    }
    auto v = build_run_view(std::move(f));
    v.profiles = list_run_profiles(dir);
    if (!v.roofline)
        v.roofline = compute_roofline(v);
    return v;
}

}  // namespace warpsmith::report
