#include "engine/search/progress.hpp"

#include "engine/search/budget.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/terminal_text.hpp"
#include "harness/core/utf8_text.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstdio>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

// Journal events as the engine wrote them, read leniently: a line of progress never stops a run.
std::string str(const json::object* o, std::string_view key)
{
    if (auto s = lenient::string_at(o, key))
        return *s;
    if (const json::value* v = lenient::value_at(o, key); v && v->is_int64())
        return std::to_string(v->get_int64());
    return {};
}

std::string str(const json::object& o, std::string_view key)
{
    return str(&o, key);
}

std::string tokens_text(std::int64_t t)
{
    if (t >= 1000000)
        return fmt("%.1fM", t / 1e6);
    if (t >= 1000)
        return fmt("%.1fk", t / 1e3);
    return std::to_string(t);
}

}  // namespace

json::object progress_snapshot::to_json() const
{
    return json::object{
        {"iteration", iteration},
        {"max_iterations", max_iterations ? json::value(*max_iterations) : json::value(nullptr)},
        {"branches",
         json::object{
             {"proposing", proposing}, {"compiling", compiling}, {"queued", queued}, {"timing", timing}}},
        {"proposed", proposed},
        {"evaluated", evaluated},
        {"valid", valid},
        {"best_speedup", best_speedup ? json::value(*best_speedup) : json::value(nullptr)},
        {"best", best_id.empty() ? json::value(nullptr) : json::value(best_id)},
        {"usage", warpsmith::to_json(usage)},
        {"gpu_busy_fraction", gpu_busy_fraction},
        {"elapsed_seconds", elapsed_seconds},
        {"profiles", profiles},
        {"profile_seconds", profile_seconds}};
}

std::string progress_snapshot::line() const
{
    std::string s = "it " + std::to_string(iteration);
    if (max_iterations)
        s += "/" + std::to_string(*max_iterations);
    s += " | model " + std::to_string(proposing) + " compile " + std::to_string(compiling) + " queued " +
         std::to_string(queued) + " timing " + std::to_string(timing);
    s += " | " + std::to_string(evaluated) + " evaluated, " + std::to_string(valid) + " valid";
    if (best_speedup)
        s += " | best " + fmt("%.2fx", *best_speedup) + " " + best_id;
    const auto tokens = budget_tracker::counted_tokens(usage);
    if (tokens > 0 || usage.cost_usd > 0)
        s += " | " + tokens_text(tokens) + " tok " + fmt("$%.2f", usage.cost_usd);
    s += " | GPU " + fmt("%.0f%%", 100 * gpu_busy_fraction);
    if (profiles > 0)
        s += " | " + std::to_string(profiles) + " profiles " + fmt("%.0f s", profile_seconds);
    s += " | " + fmt("%.0f s", elapsed_seconds);
    return s;
}

std::string describe_event(const json::object& ev)
{
    const auto type = str(ev, "event");
    if (type == "evaluated")
    {
        std::string s = str(ev, "id");
        if (lenient::bool_at(ev, "valid").value_or(false))
        {
            s += " valid    " + fmt("%.3fx", lenient::number_or(ev, "speedup_vs_reference")) +
                 " vs reference, score " + fmt("%.2f us", lenient::number_or(ev, "score_us"));
        }
        else
        {
            const json::object* f = lenient::object_at(ev, "failure");
            const std::string kind = str(f, "kind");
            std::string message = str(f, "message");
            if (message.size() > 100)
                message = std::string(utf8_prefix(message, 97)) + "...";
            if (auto nl = message.find('\n'); nl != std::string::npos)
                message = message.substr(0, nl);
            s += " invalid  " + kind + (message.empty() ? "" : ": " + message);
        }
        return s;
    }
    if (type == "invalidated")
    {
        // The final confirmation found a candidate invalid (docs/engine.md, "Scoring and
        // confirmation"): it cannot win.
        const json::object* f = lenient::object_at(ev, "failure");
        const std::string kind = str(f, "kind");
        std::string message = str(f, "message");
        if (auto nl = message.find('\n'); nl != std::string::npos)
            message = message.substr(0, nl);
        if (message.size() > 100)
            message = std::string(utf8_prefix(message, 97)) + "...";
        return str(ev, "id") + " invalid in " + str(ev, "stage") + ": " + kind +
               (message.empty() ? "" : ": " + message);
    }
    if (type == "iteration_finished")
        return "iteration " + str(ev, "iteration") + " finished";
    if (type == "proposal_failed")
        return "branch " + str(ev, "branch") + ": strategy failed: " + str(ev, "error");
    if (type == "branch_stopped")
        return "branch " + str(ev, "branch") + " stopped (" + str(ev, "reason") + ")";
    if (type == "stop_requested")
        return "stopping: " + str(ev, "reason");
    if (type == "baseline")
    {
        return str(ev, "key") + " on GPU " + str(ev, "gpu") + ": " +
               (lenient::bool_at(ev, "valid").value_or(false)
                    ? fmt("%.2f us", lenient::number_or(ev, "score_us"))
                    : "invalid");
    }
    if (type == "vendor_baseline")
    {
        // A vendor library's time on the same GPU as the reference (docs/engine.md, "Vendor
        // baselines"), or why it could not be timed.
        std::string s = str(ev, "key") + " on GPU " + str(ev, "gpu") + ": ";
        if (lenient::bool_at(ev, "available").value_or(false))
        {
            const auto score = lenient::number_at(ev, "score_us");
            s += score ? fmt("%.2f us", *score) : std::string("no timed case");
            if (!lenient::bool_at(ev, "within_tolerance").value_or(true))
                s += " (outside the workload's tolerance)";
            return s;
        }
        const json::object* e = lenient::object_at(ev, "error");
        const std::string kind = str(e, "kind");
        const std::string message = str(e, "message");
        return s + "not timed (" + kind + (message.empty() ? "" : ": " + message) + ")";
    }
    return {};
}

progress_reporter::progress_reporter(progress_mode mode, std::FILE* out, double plain_interval)
    : mode_(mode), out_(out), plain_interval_(plain_interval)
{
}

void progress_reporter::permanent(const std::string& text)
{
    if (mode_ == progress_mode::tty && status_shown_)
        std::fputs("\r\033[K", out_);
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
    status_shown_ = false;
}

void progress_reporter::status(const progress_snapshot& now)
{
    if (mode_ == progress_mode::tty)
    {
        std::fputs("\r\033[K", out_);
        std::fputs(terminal_text(now.line()).c_str(), out_);  // best_id may come from a resumed journal
        status_shown_ = true;
    }
    else if (mode_ == progress_mode::plain && now.elapsed_seconds - last_plain_ >= plain_interval_)
    {
        last_plain_ = now.elapsed_seconds;
        std::fputs(terminal_text("status: " + now.line() + "\n").c_str(), out_);
    }
}

void progress_reporter::event(const json::object& ev, const progress_snapshot& now)
{
    if (mode_ == progress_mode::quiet)
        return;
    if (mode_ == progress_mode::json)
    {
        json::object line{{"type", "progress"}, {"event", ev}, {"status", now.to_json()}};
        // Candidate results are summarized; the full result is in result.json.
        if (auto* e = line["event"].if_object())
            e->erase("result");
        std::fputs((to_json_text(line) + "\n").c_str(), out_);
        std::fflush(out_);
        return;
    }
    if (auto text = describe_event(ev); !text.empty())
        permanent(terminal_text(text));  // failure messages quote compile logs: model-written text
    status(now);
    std::fflush(out_);
}

void progress_reporter::finish()
{
    if (mode_ == progress_mode::tty && status_shown_)
    {
        std::fputs("\r\033[K", out_);
        std::fflush(out_);
        status_shown_ = false;
    }
}

}  // namespace warpsmith
