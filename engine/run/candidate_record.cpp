#include "engine/run/candidate_record.hpp"

#include "harness/core/error.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

std::string event_type(const json::object& ev)
{
    return lenient::string_or(ev, "event", "event");
}

[[noreturn]] void bad_event(const json::object& ev, std::string_view what)
{
    throw user_error("journal: '" + event_type(ev) + "' event: " + std::string(what));
}

/// Reads a journal event strictly (the journal is warpsmith's record: null is absent) and turns a
/// malformed field into the user_error the replay reports: "journal: 'evaluated' event: gpu: must
/// be an integer, got \"one\"".
template <class F>
void read_event(const json::object& ev, F&& read)
{
    try
    {
        read(json_reader(ev,
                         json_location("journal: '" + event_type(ev) + "' event", {}, json_style::record)));
    }
    catch (const json_error& e)
    {
        throw user_error(e.what());
    }
}

int int_of(const json_reader& r, std::string_view key)
{
    return static_cast<int>(r.require_int64(key));
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

compile_output compile_summary_from_json(const json::value& v, const json_location& loc)
{
    const json_reader o(v, loc);
    compile_output c;
    c.compiled = o.optional_bool("compiled").value_or(false);
    c.error = o.optional_string("error").value_or("");
    c.log = o.optional_string("log").value_or("");
    c.arch = o.optional_string("arch").value_or("");
    c.key = o.optional_string("key").value_or("");
    c.entries = o.optional_strings("entries");
    if (const json::value* x = o.find("resources"))
        c.resources = resource_usage::from_json(*x);
    c.cache_hit = o.optional_bool("cache_hit").value_or(false);
    c.compile_ms = o.optional_number("compile_ms").value_or(0);
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
        const json::object& o = *r.invalidated;
        for (const char* k : {"kind", "case", "message"})
            failure[k] = lenient::value_at(o, k) ? *lenient::value_at(o, k) : json::value(nullptr);
        if (const json::value* s = lenient::value_at(o, "stage"))
            stage = *s;
        if (const json::value* a = lenient::value_at(o, "attempt"))
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
    read_event(ev,
               [&](const json_reader& o)
               {
                   r.ec.id = o.require_string("id");
                   if (candidate_number(r.ec.id) == 0)
                       o.fail("id", "must look like c0001, got '" + r.ec.id + "'");
                   r.ec.branch = int_of(o, "branch");
                   r.ec.iteration = int_of(o, "iteration");
                   r.ec.parent = o.optional_string("parent");
                   r.repair_of = o.optional_string("repair_of");
                   r.ec.rationale = o.optional_string("rationale").value_or("");
                   r.ec.cand = candidate::from_json(o.require("candidate"), "journal: candidate " + r.ec.id);
                   if (const json::object* meta = o.optional_object("meta"))
                       r.ec.meta = *meta;
               });
    return r;
}

void apply_compiled(candidate_record& r, const json::object& ev)
{
    read_event(ev,
               [&](const json_reader& o)
               { r.ec.compile = compile_summary_from_json(o.require("compile"), o.at("compile")); });
    r.compiled = true;
}

void apply_evaluated(candidate_record& r, const json::object& ev)
{
    read_event(ev,
               [&](const json_reader& o)
               {
                   r.gpu = int_of(o, "gpu");
                   r.ec.valid = o.require_bool("valid");
                   r.ec.failure_kind.clear();
                   r.ec.failure_message.clear();
                   if (const auto f = o.optional_nested("failure"))
                   {
                       r.ec.failure_kind = f->optional_string("kind").value_or("");
                       r.ec.failure_message = f->optional_string("message").value_or("");
                   }
                   r.ec.score_us = o.optional_number("score_us").value_or(0);
                   r.ec.speedup_vs_reference = o.optional_number("speedup_vs_reference").value_or(0);
                   r.ec.speedup_vs_initial = o.optional_number("speedup_vs_initial").value_or(0);
                   r.ec.case_median_us.clear();
                   if (const auto m = o.optional_nested("case_median_us"))
                       for (const auto& kv : m->object())
                           r.ec.case_median_us[std::string(kv.key())] =
                               m->optional_number(kv.key()).value_or(0);
                   r.queued_ms = o.optional_number("queued_ms").value_or(0);
                   r.busy_ms = o.optional_number("busy_ms").value_or(0);
                   r.worker_restarted = o.optional_bool("worker_restarted").value_or(false);
                   r.restart_reason = o.optional_string("restart_reason").value_or("");
                   if (const json::value* res = o.find("result"))
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
               });
    r.invalidated.reset();
    r.evaluated = true;
}

void apply_invalidated(candidate_record& r, const json::object& ev)
{
    if (!r.evaluated)
        bad_event(ev, "candidate " + r.ec.id + " is invalidated before it was evaluated");
    read_event(ev,
               [&](const json_reader& o)
               {
                   const json_reader f = o.nested("failure");
                   const std::string stage = o.optional_string("stage").value_or("confirmation");
                   const int attempt = static_cast<int>(o.optional_int64("attempt", {0}).value_or(0));
                   invalidate_record(r,
                                     stage,
                                     attempt,
                                     f.optional_string("kind").value_or(""),
                                     f.optional_string("case").value_or(""),
                                     f.optional_string("message").value_or(""));
               });
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
