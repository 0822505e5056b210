#include "harness/protocol/evaluation_result.hpp"

#include "harness/protocol/json_read.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>

namespace warpsmith::protocol
{

namespace json = boost::json;

namespace
{

json::value optional_json(const std::optional<double>& v)
{
    return v ? number_json(*v) : json::value(nullptr);
}

json::value optional_json(const std::optional<int>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

std::optional<int> optional_int(const object_in& o, std::string_view key)
{
    if (auto v = o.integer(key))
        return static_cast<int>(*v);
    return std::nullopt;
}

const json::array* array_at(const object_in& o, std::string_view key)
{
    const json::value* v = o.find(key);
    if (!v)
        return nullptr;
    if (!v->is_array())
        o.fail(key, "expected an array");
    return &v->get_array();
}

std::string indexed(const std::string& path, std::size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

// ---- element readings ---------------------------------------------------------------------------

json::value reading_json(const element_reading& r)
{
    return std::visit(
        [](const auto& x) -> json::value
        {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, double>)
                return number_json(x);
            else
                return json::value(x);
        },
        r);
}

element_reading reading_from(const json::value* v)
{
    if (!v || v->is_null())
        return std::string();
    if (v->is_int64())
        return v->get_int64();
    if (v->is_uint64())
        return v->get_uint64();
    if (v->is_double())
        return v->get_double();
    if (v->is_string())
        return std::string(v->get_string());
    return std::string(json::serialize(*v));
}

// ---- validation ---------------------------------------------------------------------------------

validation_run run_from(const json::value& v, const std::string& path)
{
    const object_in o(v, path);
    validation_run r;
    r.inputs = o.string("inputs").value_or(r.inputs);
    r.passed = o.boolean("passed").value_or(r.passed);
    r.elements = o.count("elements").value_or(0);
    r.mismatches = o.count("mismatches").value_or(0);
    r.unwritten = o.count("unwritten").value_or(0);
    r.nonfinite = o.count("nonfinite").value_or(0);
    r.max_abs_error = o.number("max_abs_error").value_or(0);
    r.max_rel_error = o.number("max_rel_error").value_or(0);
    if (const json::array* list = array_at(o, "first_mismatches"))
        for (std::size_t i = 0; i < list->size(); ++i)
        {
            const object_in m((*list)[i], indexed(o.path_of("first_mismatches"), i));
            mismatch_report e;
            e.buffer = m.string("buffer").value_or("");
            e.index = m.count("index").value_or(0);
            e.got = reading_from(m.find("got"));
            e.expected = reading_from(m.find("expected"));
            r.first_mismatches.push_back(std::move(e));
        }
    return r;
}

json::object validation_json(const case_validation& v)
{
    json::array runs;
    for (const validation_run& r : v.runs)
        runs.push_back(r.to_json());
    return json::object{
        {"passed", v.passed},
        {"runs", std::move(runs)},
        {"guards_intact", v.guards_intact},
        {"inputs_intact", v.inputs_intact},
        {"repeat_agrees", v.repeat_agrees ? json::value(*v.repeat_agrees) : json::value(nullptr)}};
}

case_validation validation_from(const json::value* v, const std::string& path)
{
    case_validation out;
    if (!v || v->is_null())
        return out;
    const object_in o(*v, path);
    out.passed = o.boolean("passed").value_or(false);
    if (const json::array* runs = array_at(o, "runs"))
        for (std::size_t i = 0; i < runs->size(); ++i)
            out.runs.push_back(run_from((*runs)[i], indexed(o.path_of("runs"), i)));
    out.guards_intact = o.boolean("guards_intact").value_or(true);
    out.inputs_intact = o.boolean("inputs_intact").value_or(true);
    out.repeat_agrees = o.boolean("repeat_agrees");
    return out;
}

// ---- launch, cases ------------------------------------------------------------------------------

std::optional<launch_dims> launch_from(const json::value* v, const std::string& path)
{
    if (!v || v->is_null())
        return std::nullopt;
    const object_in o(*v, path);
    launch_dims d;
    auto triple = [&](std::string_view key, std::array<std::int64_t, 3>& out)
    {
        const json::array* a = array_at(o, key);
        if (!a)
            return;
        for (std::size_t i = 0; i < a->size() && i < 3; ++i)
        {
            if (!(*a)[i].is_number())
                o.fail(key, "expected an array of integers");
            out[i] = (*a)[i].to_number<std::int64_t>();
        }
    };
    triple("grid", d.grid);
    triple("block", d.block);
    d.shared_bytes = o.integer("shared_bytes").value_or(0);
    return d;
}

json::object case_json(const case_result& c)
{
    return json::object{{"name", c.name},
                        {"role", c.role},
                        {"launch", c.launch ? warpsmith::to_json(*c.launch) : json::value(nullptr)},
                        {"validation", validation_json(c.validation)},
                        {"timing", c.timing ? json::value(c.timing->to_json()) : json::value(nullptr)}};
}

case_result case_from(const json::value& v, const std::string& path)
{
    const object_in o(v, path);
    case_result c;
    c.name = o.string("name").value_or("");
    c.role = o.string("role").value_or(c.role);
    c.launch = launch_from(o.find("launch"), o.path_of("launch"));
    c.validation = validation_from(o.find("validation"), o.path_of("validation"));
    if (const json::value* t = o.find("timing"))
        c.timing = timing_report::from_json(*t, o.path_of("timing"));
    return c;
}

// ---- environment --------------------------------------------------------------------------------

json::value environment_json(const std::optional<environment_info>& env)
{
    if (!env)
        return nullptr;
    return env->to_json();
}

std::optional<environment_info> environment_from(const json::value* v);

}  // namespace

json::object environment_info::to_json() const
{
    const environment_info* env = this;
    json::object o{{"gpu", env->gpu}, {"arch", env->arch}};
    if (!env->driver_version.empty())
        o["driver_version"] = env->driver_version;
    if (!env->nvrtc_version.empty())
        o["nvrtc_version"] = env->nvrtc_version;
    if (!env->worker_version.empty())
        o["worker_version"] = env->worker_version;
    if (env->simulated)
        o["simulated"] = true;
    if (env->clocks)
        o["clocks"] = json::object{{"sm_mhz_start", optional_json(env->clocks->sm_mhz_start)},
                                   {"sm_mhz_end", optional_json(env->clocks->sm_mhz_end)},
                                   {"mem_mhz_start", optional_json(env->clocks->mem_mhz_start)},
                                   {"mem_mhz_end", optional_json(env->clocks->mem_mhz_end)}};
    return o;
}

namespace
{

std::optional<environment_info> environment_from(const json::value* v)
{
    if (!v || v->is_null())
        return std::nullopt;
    const object_in o(*v, "environment");
    environment_info e;
    e.gpu = o.string("gpu").value_or("");
    e.arch = o.string("arch").value_or("");
    e.driver_version = o.string("driver_version").value_or("");
    e.nvrtc_version = o.string("nvrtc_version").value_or("");
    e.worker_version = o.string("worker_version").value_or("");
    e.simulated = o.boolean("simulated").value_or(false);
    if (const json::value* c = o.find("clocks"))
    {
        const object_in k(*c, "environment.clocks");
        e.clocks = clock_readings{optional_int(k, "sm_mhz_start"),
                                  optional_int(k, "sm_mhz_end"),
                                  optional_int(k, "mem_mhz_start"),
                                  optional_int(k, "mem_mhz_end")};
    }
    return e;
}

}  // namespace

// ---- failure_report -----------------------------------------------------------------------------

json::object failure_report::to_json() const
{
    return json::object{{"kind", kind},
                        {"case", case_name.empty() ? json::value(nullptr) : json::value(case_name)},
                        {"message", message}};
}

failure_report failure_report::from_json(const json::value& v, const std::string& path)
{
    const object_in o(v, path);
    return failure_report{
        o.string("kind").value_or(""), o.string("case").value_or(""), o.string("message").value_or("")};
}

std::string failure_report::text() const
{
    return case_name.empty() ? message : "case " + case_name + ": " + message;
}

// ---- validation_run -----------------------------------------------------------------------------

json::object validation_run::to_json() const
{
    json::array first;
    for (const mismatch_report& m : first_mismatches)
        first.push_back(json::object{{"buffer", m.buffer},
                                     {"index", m.index},
                                     {"got", reading_json(m.got)},
                                     {"expected", reading_json(m.expected)}});
    return json::object{{"inputs", inputs},
                        {"passed", passed},
                        {"elements", elements},
                        {"mismatches", mismatches},
                        {"unwritten", unwritten},
                        {"nonfinite", nonfinite},
                        {"max_abs_error", number_json(max_abs_error)},
                        {"max_rel_error", number_json(max_rel_error)},
                        {"first_mismatches", std::move(first)}};
}

// ---- timing_report ------------------------------------------------------------------------------

std::optional<double> timing_report::median_us() const
{
    if (!stats || !std::isfinite(stats->median_us) || stats->median_us <= 0)
        return std::nullopt;
    return stats->median_us;
}

json::object timing_report::to_json() const
{
    json::object o;
    if (stats)
        o = stats->to_json().as_object();
    o["warmup"] = warmup;
    o["mode"] = to_string(mode);
    o["wall_us_per_launch"] = optional_json(wall_us_per_launch);
    if (wall_us_first)
        o["wall_us_first"] = number_json(*wall_us_first);
    o["checked_launches"] = checked_launches;
    if (stopped)
        o["stopped"] = to_string(*stopped);
    o["target_rel_noise"] = number_json(target_rel_noise);
    o["rel_noise"] = number_json(rel_noise);
    o["suspect"] = suspect;
    o["timed_output_valid"] = timed_output_valid;
    return o;
}

timing_report timing_report::from_json(const json::value& v, const std::string& path)
{
    const object_in o(v, path);
    timing_report t;
    if (auto median = o.number("median_us"))
    {
        timing_stats s;
        s.median_us = *median;
        s.mean_us = o.number("mean_us").value_or(0);
        s.min_us = o.number("min_us").value_or(0);
        s.max_us = o.number("max_us").value_or(0);
        s.p10_us = o.number("p10_us").value_or(0);
        s.p90_us = o.number("p90_us").value_or(0);
        s.stddev_us = o.number("stddev_us").value_or(0);
        s.rel_iqr = o.number("rel_iqr").value_or(0);
        s.samples = optional_int(o, "samples").value_or(0);
        t.stats = s;
    }
    t.warmup = optional_int(o, "warmup").value_or(0);
    if (auto m = o.string("mode"))
    {
        const auto mode = timing_mode_from(*m);
        if (!mode)
            o.fail("mode", "expected \"cold\" or \"hot\"");
        t.mode = *mode;
    }
    t.wall_us_per_launch = o.number("wall_us_per_launch");
    t.wall_us_first = o.number("wall_us_first");
    t.checked_launches = optional_int(o, "checked_launches").value_or(0);
    if (auto s = o.string("stopped"))
    {
        const auto stop = timing_stop_from(*s);
        if (!stop)
            o.fail("stopped", "expected fixed, quiet, ceiling or dominated");
        t.stopped = *stop;
    }
    t.target_rel_noise = o.number("target_rel_noise").value_or(0);
    t.rel_noise = o.number("rel_noise").value_or(0);
    t.suspect = o.boolean("suspect").value_or(false);
    t.timed_output_valid = o.boolean("timed_output_valid").value_or(true);
    return t;
}

// ---- evaluation_result --------------------------------------------------------------------------

const case_result* evaluation_result::find_case(std::string_view name) const
{
    for (const case_result& c : cases)
        if (c.name == name)
            return &c;
    return nullptr;
}

std::map<std::string, double> evaluation_result::performance_medians() const
{
    std::map<std::string, double> out;
    for (const case_result& c : cases)
        if (c.is_performance() && !c.name.empty() && c.timing)
            if (auto m = c.timing->median_us())
                out[c.name] = *m;
    return out;
}

evaluation_result evaluation_result::invalid(std::string kind,
                                             std::string message,
                                             std::optional<double> eval_ms)
{
    evaluation_result r;
    r.status = evaluation_status::invalid;
    r.failure = failure_report{std::move(kind), {}, std::move(message)};
    r.eval_ms = eval_ms;
    return r;
}

json::object evaluation_result::to_json() const
{
    json::array case_list;
    for (const case_result& c : cases)
        case_list.push_back(case_json(c));
    json::object o{{"status", valid() ? "valid" : "invalid"},
                   {"failure", failure ? json::value(failure->to_json()) : json::value(nullptr)},
                   {"cases", std::move(case_list)},
                   {"score_us", optional_json(score_us)},
                   {"environment", environment_json(environment)}};
    if (eval_ms)
        o["eval_ms"] = *eval_ms;
    if (!phases_ms.empty())
    {
        json::object p;
        for (const auto& [name, ms] : phases_ms)
            p[name] = ms;
        o["phases_ms"] = std::move(p);
    }
    if (profiled)
        o["profiled"] = json::object{
            {"case", profiled->case_name}, {"run", profiled->run}, {"launched", profiled->launched}};
    if (eval_cache)
        o["eval_cache"] = json::object{{"hit", true},
                                       {"run", eval_cache->run},
                                       {"candidate", eval_cache->candidate},
                                       {"time", eval_cache->time},
                                       {"key", eval_cache->key}};
    return o;
}

evaluation_result evaluation_result::from_json(const json::value& v)
{
    const object_in o(v, "");
    evaluation_result r;
    const std::string status = o.string("status").value_or("invalid");
    if (status != "valid" && status != "invalid")
        o.fail("status", "expected \"valid\" or \"invalid\"");
    r.status = status == "valid" ? evaluation_status::valid : evaluation_status::invalid;
    if (const json::value* f = o.find("failure"))
        r.failure = failure_report::from_json(*f);
    if (const json::array* list = array_at(o, "cases"))
        for (std::size_t i = 0; i < list->size(); ++i)
            r.cases.push_back(case_from((*list)[i], indexed("cases", i)));
    r.score_us = o.number("score_us");
    r.environment = environment_from(o.find("environment"));
    r.eval_ms = o.number("eval_ms");
    if (const json::value* p = o.find("phases_ms"))
    {
        const object_in phases(*p, "phases_ms");
        for (const auto& [name, ms] : p->get_object())
            if (auto x = phases.number(name))
                r.phases_ms[std::string(name)] = *x;
    }
    if (const json::value* p = o.find("profiled"))
    {
        const object_in pr(*p, "profiled");
        r.profiled = profiled_launch{pr.string("case").value_or(""),
                                     pr.string("run").value_or("repeat"),
                                     pr.boolean("launched").value_or(false)};
    }
    if (const json::value* c = o.find("eval_cache"))
    {
        const object_in ec(*c, "eval_cache");
        r.eval_cache = cache_hit{ec.string("run").value_or(""),
                                 ec.string("candidate").value_or(""),
                                 ec.string("time").value_or(""),
                                 ec.string("key").value_or("")};
    }
    return r;
}

}  // namespace warpsmith::protocol
