#include "engine/run/candidate_record.hpp"

#include "harness/core/error.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

[[noreturn]] void bad_event(const json::object& ev, std::string_view what)
{
    std::string type = "event";
    if (const auto* t = ev.if_contains("event"); t && t->is_string())
        type = std::string(t->get_string());
    throw user_error("journal: '" + type + "' event: " + std::string(what));
}

const json::value& need(const json::object& ev, std::string_view key)
{
    const auto* v = ev.if_contains(key);
    if (!v)
        bad_event(ev, "'" + std::string(key) + "' is missing");
    return *v;
}

std::string need_string(const json::object& ev, std::string_view key)
{
    const auto& v = need(ev, key);
    if (!v.is_string())
        bad_event(ev, "'" + std::string(key) + "' must be a string");
    return std::string(v.get_string());
}

double number_or(const json::object& ev, std::string_view key, double dflt)
{
    const auto* v = ev.if_contains(key);
    if (!v || v->is_null())
        return dflt;
    if (v->is_double())
        return v->get_double();
    if (v->is_int64())
        return static_cast<double>(v->get_int64());
    if (v->is_uint64())
        return static_cast<double>(v->get_uint64());
    bad_event(ev, "'" + std::string(key) + "' must be a number");
}

int int_of(const json::object& ev, std::string_view key)
{
    const auto& v = need(ev, key);
    if (!v.is_int64())
        bad_event(ev, "'" + std::string(key) + "' must be an integer");
    return static_cast<int>(v.get_int64());
}

std::optional<std::string> optional_string(const json::object& ev, std::string_view key)
{
    const auto* v = ev.if_contains(key);
    if (!v || v->is_null())
        return std::nullopt;
    if (!v->is_string())
        bad_event(ev, "'" + std::string(key) + "' must be a string or null");
    return std::string(v->get_string());
}

json::value optional_json(const std::optional<std::string>& s)
{
    return s ? json::value(*s) : json::value(nullptr);
}

}  // namespace

std::string candidate_id(int number)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "c%04d", number);
    return buf;
}

int candidate_number(std::string_view id)
{
    if (id.size() < 5 || id[0] != 'c')
        return 0;
    int n = 0;
    for (char ch : id.substr(1))
    {
        if (ch < '0' || ch > '9' || n > 100000000)
            return 0;
        n = n * 10 + (ch - '0');
    }
    return n;
}

json::object compile_summary_json(const compile_output& c)
{
    json::array entries;
    for (const auto& e : c.entries)
        entries.emplace_back(e);
    return json::object{{"compiled", c.compiled},
                        {"error", c.error},
                        {"log", c.log},
                        {"entries", std::move(entries)},
                        {"resources", c.resources.to_json()},
                        {"arch", c.arch},
                        {"key", c.key},
                        {"cache_hit", c.cache_hit},
                        {"compile_ms", c.compile_ms}};
}

compile_output compile_summary_from_json(const json::value& v)
{
    compile_output c;
    if (!v.is_object())
        throw user_error("journal: compile summary must be an object");
    const auto& o = v.get_object();
    if (const auto* x = o.if_contains("compiled"); x && x->is_bool())
        c.compiled = x->get_bool();
    auto str = [&](std::string_view key) -> std::string
    {
        const auto* x = o.if_contains(key);
        return x && x->is_string() ? std::string(x->get_string()) : std::string();
    };
    c.error = str("error");
    c.log = str("log");
    c.arch = str("arch");
    c.key = str("key");
    if (const auto* x = o.if_contains("entries"); x && x->is_array())
        for (const auto& e : x->get_array())
            if (e.is_string())
                c.entries.emplace_back(e.get_string());
    if (const auto* x = o.if_contains("resources"); x && x->is_object())
        c.resources = resource_usage::from_json(*x);
    if (const auto* x = o.if_contains("cache_hit"); x && x->is_bool())
        c.cache_hit = x->get_bool();
    c.compile_ms = number_or(o, "compile_ms", 0);
    return c;
}

json::object proposed_event(const candidate_record& r)
{
    return json::object{{"event", "proposed"},
                        {"id", r.ec.id},
                        {"branch", r.ec.branch},
                        {"iteration", r.ec.iteration},
                        {"parent", optional_json(r.ec.parent)},
                        {"repair_of", optional_json(r.repair_of)},
                        {"rationale", r.ec.rationale},
                        {"candidate", r.ec.cand.to_json()},
                        {"meta", r.ec.meta}};
}

json::object compiled_event(const candidate_record& r)
{
    return json::object{
        {"event", "compiled"}, {"id", r.ec.id}, {"compile", compile_summary_json(r.ec.compile)}};
}

json::object evaluated_event(const candidate_record& r)
{
    json::object medians;
    for (const auto& [k, m] : r.ec.case_median_us)
        medians[k] = m;
    json::value failure = nullptr;
    if (!r.ec.valid)
        failure = json::object{{"kind", r.ec.failure_kind}, {"message", r.ec.failure_message}};
    json::object ev{{"event", "evaluated"},
                    {"id", r.ec.id},
                    {"gpu", r.gpu},
                    {"valid", r.ec.valid},
                    {"failure", std::move(failure)},
                    {"score_us", r.ec.valid ? json::value(r.ec.score_us) : json::value(nullptr)},
                    {"speedup_vs_reference", r.ec.speedup_vs_reference},
                    {"speedup_vs_initial", r.ec.speedup_vs_initial},
                    {"case_median_us", std::move(medians)},
                    {"queued_ms", r.queued_ms},
                    {"busy_ms", r.busy_ms},
                    {"worker_restarted", r.worker_restarted},
                    {"restart_reason", r.restart_reason},
                    {"result", r.ec.result.to_json()}};
    if (r.invalidated)
        ev["invalidated"] = *r.invalidated;
    return ev;
}

json::object invalidated_event(const candidate_record& r)
{
    json::object failure;
    json::value stage = "confirmation";
    json::value attempt = nullptr;
    if (r.invalidated)
    {
        const auto& o = *r.invalidated;
        for (const char* k : {"kind", "case", "message"})
            failure[k] = o.contains(k) ? o.at(k) : json::value(nullptr);
        if (const auto* s = o.if_contains("stage"))
            stage = *s;
        if (const auto* a = o.if_contains("attempt"))
            attempt = *a;
    }
    return json::object{{"event", "invalidated"},
                        {"id", r.ec.id},
                        {"stage", stage},
                        {"attempt", attempt},
                        {"failure", std::move(failure)}};
}

void invalidate_record(candidate_record& r,
                       const std::string& stage,
                       int attempt,
                       const std::string& kind,
                       const std::string& case_name,
                       const std::string& message)
{
    r.ec.valid = false;
    r.ec.failure_kind = kind.empty() ? "invalid" : kind;
    r.ec.failure_message =
        stage + ": " + (case_name.empty() ? message : "case " + case_name + ": " + message);
    r.invalidated = json::object{{"stage", stage},
                                 {"attempt", attempt},
                                 {"kind", r.ec.failure_kind},
                                 {"case", case_name.empty() ? json::value(nullptr) : json::value(case_name)},
                                 {"message", message}};
}

bool valid_in_search(const candidate_record& r)
{
    return r.ec.valid || r.invalidated.has_value();
}

candidate_record record_from_proposed(const json::object& ev)
{
    candidate_record r;
    r.ec.id = need_string(ev, "id");
    if (candidate_number(r.ec.id) == 0)
        bad_event(ev, "'id' must look like c0001, got '" + r.ec.id + "'");
    r.ec.branch = int_of(ev, "branch");
    r.ec.iteration = int_of(ev, "iteration");
    r.ec.parent = optional_string(ev, "parent");
    r.repair_of = optional_string(ev, "repair_of");
    if (const auto* v = ev.if_contains("rationale"); v && v->is_string())
        r.ec.rationale = std::string(v->get_string());
    r.ec.cand = candidate::from_json(need(ev, "candidate"), "journal: candidate " + r.ec.id);
    if (const auto* v = ev.if_contains("meta"); v && v->is_object())
        r.ec.meta = v->get_object();
    return r;
}

void apply_compiled(candidate_record& r, const json::object& ev)
{
    r.ec.compile = compile_summary_from_json(need(ev, "compile"));
    r.compiled = true;
}

void apply_evaluated(candidate_record& r, const json::object& ev)
{
    r.gpu = int_of(ev, "gpu");
    const auto& valid = need(ev, "valid");
    if (!valid.is_bool())
        bad_event(ev, "'valid' must be true or false");
    r.ec.valid = valid.get_bool();
    r.ec.failure_kind.clear();
    r.ec.failure_message.clear();
    if (const auto* f = ev.if_contains("failure"); f && f->is_object())
    {
        const auto& fo = f->get_object();
        if (const auto* k = fo.if_contains("kind"); k && k->is_string())
            r.ec.failure_kind = std::string(k->get_string());
        if (const auto* m = fo.if_contains("message"); m && m->is_string())
            r.ec.failure_message = std::string(m->get_string());
    }
    r.ec.score_us = number_or(ev, "score_us", 0);
    r.ec.speedup_vs_reference = number_or(ev, "speedup_vs_reference", 0);
    r.ec.speedup_vs_initial = number_or(ev, "speedup_vs_initial", 0);
    r.ec.case_median_us.clear();
    if (const auto* m = ev.if_contains("case_median_us"); m && m->is_object())
        for (const auto& kv : m->get_object())
            r.ec.case_median_us[std::string(kv.key())] = number_or(m->get_object(), kv.key(), 0);
    r.queued_ms = number_or(ev, "queued_ms", 0);
    r.busy_ms = number_or(ev, "busy_ms", 0);
    if (const auto* w = ev.if_contains("worker_restarted"); w && w->is_bool())
        r.worker_restarted = w->get_bool();
    if (const auto* s = ev.if_contains("restart_reason"); s && s->is_string())
        r.restart_reason = std::string(s->get_string());
    if (const auto* res = ev.if_contains("result"))
    {
        try
        {
            r.ec.result = protocol::evaluation_result::from_json(*res);
        }
        catch (const protocol::format_error& e)
        {
            bad_event(ev, std::string("result.") + e.what());
        }
    }
    r.invalidated.reset();
    r.evaluated = true;
}

void apply_invalidated(candidate_record& r, const json::object& ev)
{
    if (!r.evaluated)
        bad_event(ev, "candidate " + r.ec.id + " is invalidated before it was evaluated");
    const auto& f = need(ev, "failure");
    if (!f.is_object())
        bad_event(ev, "'failure' must be an object");
    const auto& fo = f.get_object();
    auto text = [&](std::string_view key)
    {
        const auto* v = fo.if_contains(key);
        return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    std::string stage = "confirmation";
    if (const auto* s = ev.if_contains("stage"); s && s->is_string())
        stage = std::string(s->get_string());
    int attempt = 0;
    if (const auto* a = ev.if_contains("attempt"); a && a->is_int64())
        attempt = static_cast<int>(a->get_int64());
    invalidate_record(r, stage, attempt, text("kind"), text("case"), text("message"));
}

json::object history_row(const candidate_record& r)
{
    json::object row{{"id", r.ec.id},
                     {"branch", r.ec.branch},
                     {"iteration", r.ec.iteration},
                     {"parent", optional_json(r.ec.parent)},
                     {"repair_of", optional_json(r.repair_of)},
                     {"rationale", r.ec.rationale}};
    if (!r.evaluated)
    {
        row["status"] = "pending";
        return row;
    }
    row["status"] = r.ec.valid ? "valid" : "invalid";
    if (!r.ec.valid)
        row["failure"] = json::object{{"kind", r.ec.failure_kind}, {"message", r.ec.failure_message}};
    else
    {
        json::object medians;
        for (const auto& [k, m] : r.ec.case_median_us)
            medians[k] = m;
        row["score_us"] = r.ec.score_us;
        row["speedup_vs_reference"] = r.ec.speedup_vs_reference;
        row["speedup_vs_initial"] = r.ec.speedup_vs_initial;
        row["case_median_us"] = std::move(medians);
    }
    if (r.invalidated)
        row["invalidated"] = *r.invalidated;
    row["gpu"] = r.gpu;
    json::object res = r.ec.compile.resources.to_json().as_object();
    row["resources"] = std::move(res);
    return row;
}

}  // namespace warpsmith
