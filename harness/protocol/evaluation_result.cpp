#include "harness/protocol/evaluation_result.hpp"

#include "harness/json/json_number.hpp"
#include "harness/json/json_reader.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <limits>

namespace warpsmith::protocol
{

namespace json = boost::json;

namespace
{

json::value optional_json(const std::optional<double>& v)
{
    return v ? json_number(*v) : json::value(nullptr);
}

json::value optional_json(const std::optional<int>& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

// Records name their fields by path alone ("cases[1].timing.median_us"), null reads as absent and
// non-finite numbers as written by json_number (json_style::record).
json_location record_at(const std::string& path)
{
    return json_location({}, path, json_style::record);
}

std::optional<int> optional_int(const json_reader& o, std::string_view key)
{
    constexpr json_int_range int_range{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
    if (auto v = o.optional_int64(key, int_range))
        return static_cast<int>(*v);
    return std::nullopt;
}

// ---- element readings ---------------------------------------------------------------------------

json::value reading_json(const element_reading& r)
{
    return std::visit(
        [](const auto& x) -> json::value
        {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, double>)
                return json_number(x);
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

validation_run run_from(const json_reader& o)
{
    validation_run r;
    r.inputs = o.optional_string("inputs").value_or(r.inputs);
    r.passed = o.optional_bool("passed").value_or(r.passed);
    r.elements = o.optional_uint64("elements").value_or(0);
    r.mismatches = o.optional_uint64("mismatches").value_or(0);
    r.unwritten = o.optional_uint64("unwritten").value_or(0);
    r.nonfinite = o.optional_uint64("nonfinite").value_or(0);
    r.max_abs_error = o.optional_number("max_abs_error").value_or(0);
    r.max_rel_error = o.optional_number("max_rel_error").value_or(0);
    for (const json_reader& m : o.optional_elements("first_mismatches"))
    {
        mismatch_report e;
        e.buffer = m.optional_string("buffer").value_or("");
        e.index = m.optional_uint64("index").value_or(0);
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

case_validation validation_from(const json_reader& o)
{
    case_validation out;
    out.passed = o.optional_bool("passed").value_or(false);
    for (const json_reader& run : o.optional_elements("runs"))
        out.runs.push_back(run_from(run));
    out.guards_intact = o.optional_bool("guards_intact").value_or(true);
    out.inputs_intact = o.optional_bool("inputs_intact").value_or(true);
    out.repeat_agrees = o.optional_bool("repeat_agrees");
    return out;
}

// ---- launch, cases ------------------------------------------------------------------------------

launch_dims launch_from(const json_reader& o)
{
    launch_dims d;
    auto triple = [&](std::string_view key, std::array<std::int64_t, 3>& out)
    {
        const json::array* a = o.optional_array(key);
        if (!a)
            return;
        for (std::size_t i = 0; i < a->size() && i < 3; ++i)
            out[i] = as_int64((*a)[i], o.at(key).index(i));
    };
    triple("grid", d.grid);
    triple("block", d.block);
    d.shared_bytes = o.optional_int64("shared_bytes").value_or(0);
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

case_result case_from(const json_reader& o)
{
    case_result c;
    c.name = o.optional_string("name").value_or("");
    c.role = o.optional_string("role").value_or(c.role);
    if (const auto launch = o.optional_nested("launch"))
        c.launch = launch_from(*launch);
    if (const auto validation = o.optional_nested("validation"))
        c.validation = validation_from(*validation);
    if (const json::value* t = o.find("timing"))
        c.timing = timing_report::from_json(*t, o.at("timing").path());
    return c;
}

// ---- environment --------------------------------------------------------------------------------

json::value environment_json(const std::optional<environment_info>& env)
{
    if (!env)
        return nullptr;
    return env->to_json();
}

std::optional<environment_info> environment_from(const json_reader& o);

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

std::optional<environment_info> environment_from(const json_reader& o)
{
    environment_info e;
    e.gpu = o.optional_string("gpu").value_or("");
    e.arch = o.optional_string("arch").value_or("");
    e.driver_version = o.optional_string("driver_version").value_or("");
    e.nvrtc_version = o.optional_string("nvrtc_version").value_or("");
    e.worker_version = o.optional_string("worker_version").value_or("");
    e.simulated = o.optional_bool("simulated").value_or(false);
    if (const auto k = o.optional_nested("clocks"))
    {
        e.clocks = clock_readings{optional_int(*k, "sm_mhz_start"),
                                  optional_int(*k, "sm_mhz_end"),
                                  optional_int(*k, "mem_mhz_start"),
                                  optional_int(*k, "mem_mhz_end")};
    }
    return e;
}

}  // namespace

environment_info environment_info::from_json(const json::value& v, const std::string& path)
try
{
    return *environment_from(json_reader(v, record_at(path)));
}
catch (const json_error& e)
{
    throw format_error(e);
}

// ---- failure_report -----------------------------------------------------------------------------

json::object failure_report::to_json() const
{
    return json::object{{"kind", kind},
                        {"case", case_name.empty() ? json::value(nullptr) : json::value(case_name)},
                        {"message", message}};
}

failure_report failure_report::from_json(const json::value& v, const std::string& path)
try
{
    const json_reader o(v, record_at(path));
    return failure_report{o.optional_string("kind").value_or(""),
                          o.optional_string("case").value_or(""),
                          o.optional_string("message").value_or("")};
}
catch (const json_error& e)
{
    throw format_error(e);
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
                        {"max_abs_error", json_number(max_abs_error)},
                        {"max_rel_error", json_number(max_rel_error)},
                        {"first_mismatches", std::move(first)}};
}

validation_run validation_run::from_json(const json::value& v, const std::string& path)
try
{
    return run_from(json_reader(v, record_at(path)));
}
catch (const json_error& e)
{
    throw format_error(e);
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
        o["wall_us_first"] = json_number(*wall_us_first);
    o["checked_launches"] = checked_launches;
    if (stopped)
        o["stopped"] = to_string(*stopped);
    o["target_rel_noise"] = json_number(target_rel_noise);
    o["rel_noise"] = json_number(rel_noise);
    o["suspect"] = suspect;
    o["timed_output_valid"] = timed_output_valid;
    return o;
}

timing_report timing_report::from_json(const json::value& v, const std::string& path)
try
{
    const json_reader o(v, record_at(path));
    timing_report t;
    if (auto median = o.optional_number("median_us"))
    {
        timing_stats s;
        s.median_us = *median;
        s.mean_us = o.optional_number("mean_us").value_or(0);
        s.min_us = o.optional_number("min_us").value_or(0);
        s.max_us = o.optional_number("max_us").value_or(0);
        s.p10_us = o.optional_number("p10_us").value_or(0);
        s.p90_us = o.optional_number("p90_us").value_or(0);
        s.stddev_us = o.optional_number("stddev_us").value_or(0);
        s.rel_iqr = o.optional_number("rel_iqr").value_or(0);
        s.samples = optional_int(o, "samples").value_or(0);
        t.stats = s;
    }
    t.warmup = optional_int(o, "warmup").value_or(0);
    if (auto m = o.optional_string("mode"))
    {
        const auto mode = timing_mode_from(*m);
        if (!mode)
            o.at("mode").expected("\"cold\" or \"hot\"", o.require("mode"));
        t.mode = *mode;
    }
    t.wall_us_per_launch = o.optional_number("wall_us_per_launch");
    t.wall_us_first = o.optional_number("wall_us_first");
    t.checked_launches = optional_int(o, "checked_launches").value_or(0);
    if (auto s = o.optional_string("stopped"))
    {
        const auto stop = timing_stop_from(*s);
        if (!stop)
            o.at("stopped").expected("fixed, quiet, ceiling or dominated", o.require("stopped"));
        t.stopped = *stop;
    }
    t.target_rel_noise = o.optional_number("target_rel_noise").value_or(0);
    t.rel_noise = o.optional_number("rel_noise").value_or(0);
    t.suspect = o.optional_bool("suspect").value_or(false);
    t.timed_output_valid = o.optional_bool("timed_output_valid").value_or(true);
    return t;
}
catch (const json_error& e)
{
    throw format_error(e);
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

// The result itself has no path: its fields are named alone ("cases[1].name"), and when it is not
// an object at all, it is called the message.
evaluation_result evaluation_result::from_json(const json::value& v)
try
{
    const json_reader o(v, json_location::unnamed("message", json_style::record));
    evaluation_result r;
    const std::string status = o.optional_string("status").value_or("invalid");
    if (status != "valid" && status != "invalid")
        o.at("status").expected("\"valid\" or \"invalid\"", o.require("status"));
    r.status = status == "valid" ? evaluation_status::valid : evaluation_status::invalid;
    if (const json::value* f = o.find("failure"))
        r.failure = failure_report::from_json(*f);
    for (const json_reader& c : o.optional_elements("cases"))
        r.cases.push_back(case_from(c));
    r.score_us = o.optional_number("score_us");
    if (const auto env = o.optional_nested("environment"))
        r.environment = environment_from(*env);
    r.eval_ms = o.optional_number("eval_ms");
    if (const auto phases = o.optional_nested("phases_ms"))
    {
        for (const auto& kv : phases->object())
            if (auto x = phases->optional_number(kv.key()))
                r.phases_ms[std::string(kv.key())] = *x;
    }
    if (const auto pr = o.optional_nested("profiled"))
        r.profiled = profiled_launch{pr->optional_string("case").value_or(""),
                                     pr->optional_string("run").value_or("repeat"),
                                     pr->optional_bool("launched").value_or(false)};
    if (const auto ec = o.optional_nested("eval_cache"))
        r.eval_cache = cache_hit{ec->optional_string("run").value_or(""),
                                 ec->optional_string("candidate").value_or(""),
                                 ec->optional_string("time").value_or(""),
                                 ec->optional_string("key").value_or("")};
    return r;
}
catch (const json_error& e)
{
    throw format_error(e);
}

}  // namespace warpsmith::protocol
