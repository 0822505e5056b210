#include "engine/profile/profiler.hpp"

#include "engine/executors/child_command.hpp"
#include "engine/executors/worker_error_text.hpp"
#include "engine/executors/worker_process.hpp"
#include "engine/profile/ncu_report.hpp"
#include "engine/profile/ncu_tool.hpp"
#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"

#include <boost/json/array.hpp>

#include <map>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace
{

std::string read_if_exists(const fs::path& p)
{
    std::error_code ec;
    if (!fs::exists(p, ec))
        return {};
    try
    {
        return read_text_file(p);
    }
    catch (const std::exception&)
    {
        return {};
    }
}

/// The first line of a text (messages stay one line).
std::string first_line(std::string text)
{
    if (auto eol = text.find('\n'); eol != std::string::npos)
        text.resize(eol);
    return text;
}

/// ncu's version per executable, asked once per process.
std::map<std::string, std::string>& version_cache()
{
    static std::map<std::string, std::string> cache;
    return cache;
}

}  // namespace

json::object profile_outcome::to_json() const
{
    json::object o;
    o["ok"] = ok;
    o["error_kind"] = error_kind.empty() ? json::value(nullptr) : json::value(error_kind);
    o["message"] = message.empty() ? json::value(nullptr) : json::value(message);
    o["case"] = case_name;
    o["report"] = report_path.empty() ? json::value(nullptr) : json::value(report_path.filename().string());
    o["summary"] = summary ? json::value(summary->to_json()) : json::value(nullptr);
    o["ncu_version"] = ncu_version.empty() ? json::value(nullptr) : json::value(ncu_version);
    o["wall_ms"] = wall_ms;
    return o;
}

profile_outcome profile_outcome::from_json(const json::object& o)
try
{
    const json_reader r(o, json_location("profile", {}, json_style::record));
    profile_outcome out;
    out.ok = r.require_bool("ok");
    out.error_kind = r.optional_string("error_kind").value_or("");
    out.message = r.optional_string("message").value_or("");
    out.case_name = r.optional_string("case").value_or("");
    out.ncu_version = r.optional_string("ncu_version").value_or("");
    if (std::string report = r.optional_string("report").value_or(""); !report.empty())
        out.report_path = report;
    if (const json::object* s = r.optional_object("summary"))
        out.summary = profile_summary::from_json(*s);
    out.wall_ms = r.optional_number("wall_ms").value_or(0);
    if (out.ok && !out.summary)
        throw std::invalid_argument("profile: an ok profile without a 'summary'");
    return out;
}
catch (const json_error& e)
{
    throw std::invalid_argument(e.what());
}

std::string largest_performance_case(const workload& w)
{
    std::string best;
    std::int64_t best_bytes = -1;
    const bool any_performance = w.performance_case_count() > 0;
    for (const workload_case& c : w.cases)
    {
        if (any_performance && c.role != case_role::performance)
            continue;
        std::int64_t bytes = 0;
        for (const param& p : w.sig.params)
            if (p.kind == param_kind::buffer)
                bytes += w.buffer_bytes(p, c);
        if (bytes > best_bytes)
        {
            best_bytes = bytes;
            best = c.name;
        }
    }
    return best;
}

asio::awaitable<profile_outcome> run_profile(asio::any_io_executor ex, profiler_options opts, profile_job job)
{
    const auto t0 = steady::now();
    const auto deadline = t0 + opts.timeout;
    auto left = [deadline]
    {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
        return std::max(ms, std::chrono::milliseconds(1));
    };
    profile_outcome out;
    auto fail = [&out, t0](std::string kind, std::string message)
    {
        out.ok = false;
        out.error_kind = std::move(kind);
        out.message = first_line(std::move(message));
        out.wall_ms = ms_since(t0);
        return out;
    };

    out.case_name = job.case_name.empty() ? largest_performance_case(*job.w) : job.case_name;
    if (!job.w->find_case(out.case_name))
        co_return fail("failed", "'" + out.case_name + "' is not a case of workload '" + job.w->name + "'");
    if (job.launch.command)
        co_return fail(
            "unsupported",
            "profiling runs the local warpsmith-worker under ncu; it is not available with --worker-cmd");

    std::vector<std::string> looked;
    const std::optional<fs::path> ncu = find_ncu(opts.ncu, &looked);
    if (!ncu)
        co_return fail("ncu_missing", ncu_missing_message(looked));
    std::string& version = version_cache()[ncu->string()];
    if (version.empty())
    {
        std::vector<std::string> argv{ncu->string(), "--version"};
        command_result v = co_await run_command(ex, std::move(argv), std::min(left(), 60000ms));
        version = parse_ncu_version(v.out);
        if (version.empty())
            co_return fail("unparsable",
                           ncu->string() + " --version did not print a version (exit code " +
                               std::to_string(v.exit_code) + "): is it Nsight Compute?");
    }
    out.ncu_version = version;

    std::error_code ec;
    fs::create_directories(job.output_base.parent_path(), ec);
    const fs::path log_file = job.output_base.string() + ".ncu.log";
    out.report_path = job.output_base.string() + ".ncu-rep";
    fs::remove(out.report_path, ec);
    fs::remove(log_file, ec);
    const std::vector<std::string>& sections = opts.sections.empty() ? default_ncu_sections() : opts.sections;
    std::vector<std::string> argv =
        ncu_profile_argv(*ncu, sections, log_file, job.output_base, job.launch.gpu_argv(job.device));

    evaluate_request req = std::move(job.request);
    req.validate_only = true;
    req.cases = {out.case_name};
    req.profile_case = out.case_name;
    json::value result;
    std::string died;
    bool timed_out = false;
    {
        worker_process proc(ex, argv, "profile", {});
        try
        {
            co_await proc.start(left());
            json::object resp = co_await proc.request(
                load_workload_message(job.w->to_json(), job.hidden_seed, opts.launch_timeout), left());
            if (!worker_ok(resp))
            {
                co_await proc.stop(5s);
                co_return fail("failed",
                               "the worker under ncu did not load the workload: " + worker_error_text(resp));
            }
            resp = co_await proc.request(evaluate_message(req), left());
            if (!worker_ok(resp))
            {
                co_await proc.stop(5s);
                co_return fail("failed",
                               "the worker under ncu refused the candidate: " + worker_error_text(resp));
            }
            if (const json::value* r = lenient::value_at(resp, "result"))
                result = *r;
            // ncu writes the report when the worker exits.
            co_await proc.stop(left());
        }
        catch (const boost::system::system_error& e)
        {
            if (is_cancellation(e.code()))
            {
                proc.kill();
                throw;
            }
            if (e.code() == make_error_code(errc::worker_timeout))
                timed_out = true;
            else
                died = proc.exit_description() +
                       (proc.stderr_tail().empty() ? "" : ": " + first_line(proc.stderr_tail()));
            proc.kill();
        }
        catch (const user_error& e)
        {
            co_return fail("failed", e.what());
        }
        if (!timed_out && died.empty() && proc.exit_code() != 0)
            died = proc.exit_description();
    }
    const std::string log = read_if_exists(log_file);
    if (auto problem = ncu_permission_problem(log))
        co_return fail("not_permitted", *problem);
    if (timed_out || steady::now() >= deadline)
        co_return fail("timeout",
                       "the profile did not finish within " + std::to_string(opts.timeout.count()) +
                           " ms (--profile-timeout-ms)");
    if (!result.is_null())
    {
        try
        {
            out.evaluation = protocol::evaluation_result::from_json(result);
        }
        catch (const protocol::format_error& e)
        {
            co_return fail("failed", std::string("the worker's result is malformed: ") + e.what());
        }
        if (!out.evaluation->valid())
            co_return fail("invalid",
                           "not profiled: the candidate failed validation on case " + out.case_name + ": " +
                               (out.evaluation->failure ? out.evaluation->failure->message : "invalid"));
    }
    if (!died.empty())
    {
        const std::string last = ncu_last_error(log);
        co_return fail("failed", "ncu exited with " + died + (last.empty() ? "" : " (" + last + ")"));
    }
    if (!fs::exists(out.report_path, ec))
    {
        const std::string last = ncu_last_error(log);
        co_return fail(
            "failed",
            "ncu wrote no report" + (last.empty() ? std::string(" (no launch was profiled?)") : ": " + last));
    }

    command_result raw = co_await run_command(ex, ncu_import_argv(*ncu, out.report_path, "raw"), left());
    command_result details =
        co_await run_command(ex, ncu_import_argv(*ncu, out.report_path, "details"), left());
    if (raw.timed_out || details.timed_out)
        co_return fail("timeout",
                       "exporting the report did not finish within " + std::to_string(opts.timeout.count()) +
                           " ms (--profile-timeout-ms)");
    std::vector<ncu_kernel> kernels;
    try
    {
        kernels = parse_raw_page(raw.out);
        add_details_page(kernels, details.out);
    }
    catch (const std::exception& e)
    {
        co_return fail("unparsable", "ncu " + version + ": " + e.what());
    }
    if (kernels.empty())
        co_return fail("failed",
                       "ncu's report holds no profiled launch" +
                           (ncu_last_error(log).empty() ? std::string() : " (" + ncu_last_error(log) + ")"));
    const ncu_kernel* k = &kernels.front();
    for (const ncu_kernel& candidate : kernels)
        if (candidate.name.find(req.cand.entry) != std::string::npos)
        {
            k = &candidate;
            break;
        }
    profile_summary summary = profile_summary::from_kernel(*k, version);
    summary.spill_stores_bytes = job.spill_stores_bytes;
    summary.spill_loads_bytes = job.spill_loads_bytes;
    out.summary = std::move(summary);
    out.ok = true;
    out.wall_ms = ms_since(t0);

    json::array section_list;
    for (const std::string& s : sections)
        section_list.emplace_back(s);
    json::object doc = out.to_json();
    doc["candidate"] = req.name;
    doc["entry"] = req.cand.entry;
    doc["sections"] = std::move(section_list);
    doc["profiled_launches"] = kernels.size();
    out.json_path = job.output_base.string() + ".json";
    write_json_file(out.json_path, doc);
    co_return out;
}

}  // namespace warpsmith
