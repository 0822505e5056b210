#include "harness/worker/evaluator.hpp"

#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/protocol/format_error.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/worker/candidate_loader.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/validator.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

using clock = std::chrono::steady_clock;

/// The per-case entry of the result while it is being filled.
struct case_entry
{
    case_data* data = nullptr;
    launch_dims dims;
    bool launchable = false;
    std::vector<run_report> runs;
    std::optional<case_timing> timing;
    float kernel_ms = 0;   ///< The slowest validation run (sizes the timing's chunks).
    float typical_ms = 0;  ///< The fastest validation run (sizes the warm-up).
    bool repeat_reached = false;

    protocol::case_result to_protocol() const
    {
        protocol::case_result c;
        c.name = data->name();
        c.role = std::string(to_string(data->wc->role));
        if (launchable)
            c.launch = dims;
        protocol::case_validation& v = c.validation;
        v.passed = !runs.empty();
        bool repeat_agrees = true;
        auto add = [&](const run_report& r)
        {
            v.runs.push_back(r.to_protocol());
            v.passed = v.passed && r.passed;
            v.guards_intact = v.guards_intact && r.guards_intact;
            v.inputs_intact = v.inputs_intact && r.inputs_intact;
        };
        for (const run_report& r : runs)
        {
            add(r);
            if (r.kind == run_kind::repeat)
                repeat_agrees = r.agrees_with_first;
        }
        if (timing)
        {
            for (const run_report& r : timing->timed_runs)
                add(r);
            c.timing = timing->to_report();
        }
        if (repeat_reached)
            v.repeat_agrees = repeat_agrees;
        return c;
    }
};

}  // namespace

timing_options parse_timing(const json::object* timing, const std::string& where)
{
    if (!timing)
        return {};
    try
    {
        return timing_options::from_json(*timing);
    }
    catch (const protocol::format_error& e)
    {
        bad_request(where + ": " + e.what());
    }
}

evaluation evaluate(gpu_session& session, const json::object& request)
try
{
    const auto t_start = clock::now();
    const json_reader r(request, request_location("evaluate"));
    const std::string name = r.optional_string("name").value_or("candidate");
    const json::object& candidate_json = r.require_object("candidate");
    const timing_options timing = parse_timing(r.optional_object("timing"), "evaluate");
    const bool validate_only = r.optional_bool("validate_only").value_or(false);
    const std::vector<std::string> wanted = r.optional_strings("cases");
    // Under Nsight Compute (docs/nsight.md): the repeat run of this case is the profiled launch.
    const std::optional<std::string> profile_case = r.optional_string("profile_case");

    case_store& store = session.store();
    const workload& wl = store.get_workload();
    std::vector<case_entry> entries;
    for (const std::string& case_name : wanted)
        if (!store.find(case_name))
            bad_request("evaluate: 'cases' names '" + case_name + "', which is not a case of workload '" +
                        wl.name + "'");
    for (case_data& c : store.cases())
        if (wanted.empty() || std::find(wanted.begin(), wanted.end(), c.name()) != wanted.end())
            entries.emplace_back().data = &c;
    if (profile_case && !store.find(*profile_case))
        bad_request("evaluate: 'profile_case' names '" + *profile_case +
                    "', which is not a case of workload '" + wl.name + "'");
    if (profile_case && !wanted.empty() &&
        std::find(wanted.begin(), wanted.end(), *profile_case) == wanted.end())
        bad_request("evaluate: 'profile_case' '" + *profile_case + "' is not among 'cases'");
    bool profiled = false;

    gpu_device& device = session.device();
    protocol::environment_info environment = session.environment();
    std::map<std::string, double> phases;
    evaluation out;
    std::optional<failure> fail;
    std::optional<cuda::clock_reading> clocks_start, clocks_end;
    std::string stage = "preparing the candidate";
    std::string stage_case;

    prepared_candidate prepared =
        prepare_candidate(candidate_json, "evaluate: 'candidate'", session.compiler(), device.arch(), wl.sig);
    phases["compile_ms"] = prepared.compile_ms;
    phases["load_ms"] = prepared.load_ms;
    if (prepared.fail)
        fail = prepared.fail;
    else if (std::string problem = prepared.cand.validate(wl); !problem.empty())
        fail = failure{failure_kind::bad_launch, "", "the launch plan is not usable: " + problem};

    double validate_ms = 0, time_ms = 0;
    double seal_ms = 0;
    const std::uint32_t seal_phase = session.next_scrub_seed();
    bool sealed = false;
    try
    {
        // The seal: a digest of the memory no candidate may change, before and after (case_store.hpp).
        // Only a candidate that gets this far can launch; the after-digest is compared only with a
        // before-digest of this request.
        // Every case starts at rest (case_store::retire), so the digests before and after agree
        // unless a launch changed memory that was not its own to change.
        sealed = !fail && store.seal_regions() > 0;
        const auto t_open = clock::now();
        if (!fail)
            store.retire_all(device.stream());
        if (sealed)
            store.seal_digest(session.hygiene(), device.stream(), seal_phase, 0);
        // Validation, every selected case, before any timing.
        phases["open_ms"] = ms_since(t_open);
        const auto t_validate = clock::now();
        for (case_entry& e : entries)
        {
            if (fail)
                break;
            case_data& c = *e.data;
            stage_case = c.name();
            stage = "case " + c.name() + ": launch plan";
            try
            {
                e.dims = prepared.cand.plan_for(c.name()).evaluate(prepared.cand.launch_variables(*c.wc));
            }
            catch (const std::exception& ex)
            {
                fail = failure{failure_kind::bad_launch, c.name(), "case " + c.name() + ": " + ex.what()};
                break;
            }
            if (std::string reason = prepare_launch(*prepared.kernel, e.dims, device.limits());
                !reason.empty())
            {
                fail = failure{failure_kind::bad_launch, c.name(), "case " + c.name() + ": " + reason};
                break;
            }
            e.launchable = true;
            validator v(device, session.helpers(), store);
            v.set_hygiene(&session.hygiene());
            if (profile_case == c.name())
                v.set_profiled_run(run_kind::repeat);
            for (run_kind kind : {run_kind::stated, run_kind::hidden, run_kind::repeat})
            {
                stage = "case " + c.name() + " (" + std::string(to_string(kind)) + " run)";
                if (kind == run_kind::repeat)
                    e.repeat_reached = true;
                run_report report = v.run(c, *prepared.kernel, e.dims, kind, session.next_scrub_seed());
                e.kernel_ms = std::max(e.kernel_ms, report.kernel_ms);
                if (report.kernel_ms > 0)
                    e.typical_ms =
                        e.typical_ms > 0 ? std::min(e.typical_ms, report.kernel_ms) : report.kernel_ms;
                const bool passed = report.passed;
                if (kind == run_kind::repeat && profile_case == c.name())
                    profiled = true;
                if (!passed)
                    fail = report.fail;
                e.runs.push_back(std::move(report));
                if (!passed)
                    break;
                // The stated run's output is what the repeat run must reproduce.
                if (kind == run_kind::stated)
                    v.snapshot_outputs(c);
            }
            // A validated output of this case must not stay where a later launch could copy it, and
            // the case goes back to rest before the next one runs.
            store.retire(c, device.stream());
            store.poison_snapshots(c, device.stream());
        }
        validate_ms = ms_since(t_validate);

        // Timing: performance cases of a candidate that passed everywhere.
        if (!fail && !validate_only)
        {
            const auto t_time = clock::now();
            clocks_start = device.clocks();
            validator v(device, session.helpers(), store);
            v.set_hygiene(&session.hygiene());
            timer t(device,
                    session.helpers(),
                    store,
                    v,
                    session.events(),
                    session.scrubber(),
                    &session.hygiene());
            for (case_entry& e : entries)
            {
                if (!e.data->is_performance())
                    continue;
                stage_case = e.data->name();
                stage = "case " + e.data->name() + " (timing)";
                e.timing = t.time_case(*e.data, *prepared.kernel, e.dims, timing, e.kernel_ms, e.typical_ms);
                store.retire(*e.data, device.stream());
                if (e.timing->fail)
                {
                    fail = e.timing->fail;
                    break;
                }
            }
            clocks_end = device.clocks();
            time_ms = ms_since(t_time);
        }

        // The closing seal digest, and the guard bytes that no checked launch saw change (a
        // warm-up, an unchecked timed launch or a wall-clock launch wrote them; prepare() and
        // retire() check the guards before refilling): queued together, one wait for both.
        const auto t_seal = clock::now();
        if (sealed)
            store.seal_digest(session.hygiene(), device.stream(), seal_phase, 1);
        if (const std::string damage = store.take_unchecked_guard_damage(device.stream());
            !damage.empty() && !fail)
            fail =
                failure{failure_kind::out_of_bounds_write,
                        stage_case,
                        "the kernel wrote outside its buffers, into " + damage +
                            ", in a launch that was not checked (a warm-up, an unchecked timed launch or a "
                            "wall-clock launch); found when the harness refilled the guard"};
        if (sealed)
        {
            seal_ms = ms_since(t_seal);
            if (std::string broken = store.seal_broken(); !broken.empty())
            {
                // The harness's own memory is no longer what it loaded: reload it (worker restart).
                fail = failure{failure_kind::out_of_bounds_write,
                               stage_case,
                               "the kernel wrote outside its buffers, into " + broken +
                                   " (memory no candidate may touch; the worker restarts to reload it)"};
                out.restart = true;
            }
        }
    }
    catch (const kernel_hang& ex)
    {
        fail = failure{failure_kind::hang,
                       stage_case,
                       stage + ": the kernel did not finish within launch_timeout_ms = " +
                           std::to_string(store.launch_timeout().count()) + " ms; the worker restarts"};
        log_warn(ex.what());
        out.restart = true;
    }
    catch (const cuda::cuda_error& ex)
    {
        if (ex.is_sticky())
        {
            const std::string description = cuda::error_description(ex.result());
            fail = failure{failure_kind::fault,
                           stage_case,
                           stage + ": " + ex.name() + (description.empty() ? "" : " (" + description + ")") +
                               "; the CUDA context is lost and the worker restarts"};
            out.restart = true;
        }
        else
        {
            fail = failure{failure_kind::launch_failed, stage_case, stage + ": " + ex.what()};
            // Launches ran and the closing seal digest did not: the harness's memory is unchecked,
            // so the worker reloads it rather than trust it.
            if (sealed)
            {
                fail->message += "; the worker restarts to reload the memory it could not check";
                out.restart = true;
            }
        }
    }
    phases["validate_ms"] = validate_ms;
    phases["time_ms"] = time_ms;
    phases["seal_ms"] = seal_ms;
    // Where the time went, for bench/harness_overhead: the kernel's own GPU time (event-timed
    // validation and measured launches, plus warm-up and wall-check launches counted at the
    // median) and the cold-mode L2 scrubs. eval_ms minus these is the harness's overhead.
    if (!out.restart)
    {
        double kernel_ms = 0;
        double scrub_ms = 0;
        double warmup_ms = 0, measure_ms = 0, checks_ms = 0, wall_check_ms = 0;
        for (const case_entry& e : entries)
        {
            if (e.timing)
            {
                warmup_ms += e.timing->warmup_ms;
                measure_ms += e.timing->measure_ms;
                checks_ms += e.timing->checks_ms;
                wall_check_ms += e.timing->wall_check_ms;
            }
            for (const run_report& r : e.runs)
                kernel_ms += r.kernel_ms;
            if (e.timing && e.timing->stats.samples > 0)
            {
                kernel_ms +=
                    e.timing->gpu_ms + e.timing->untimed_launches * e.timing->stats.median_us / 1000.0;
                scrub_ms += e.timing->l2_scrub_ms;
            }
        }
        phases["kernel_gpu_ms"] = kernel_ms;
        phases["l2_scrub_ms"] = scrub_ms;
        if (time_ms > 0)
        {
            phases["time_warmup_ms"] = warmup_ms;
            phases["time_measure_ms"] = measure_ms;
            phases["time_checks_ms"] = checks_ms;
            phases["time_wall_check_ms"] = wall_check_ms;
        }
    }

    protocol::evaluation_result& result = out.result;
    result.status = fail ? protocol::evaluation_status::invalid : protocol::evaluation_status::valid;
    result.failure = fail;
    // Score: geometric mean of the per-case medians over the timed performance cases.
    if (!fail && !validate_only)
    {
        std::vector<double> medians;
        for (const case_entry& e : entries)
            if (e.timing && e.timing->stats.samples > 0)
                medians.push_back(e.timing->stats.median_us);
        if (!medians.empty())
            result.score_us = geometric_mean(medians);
    }
    for (const case_entry& e : entries)
        if (!e.runs.empty() || e.launchable || (fail && fail->case_name == e.data->name()))
            result.cases.push_back(e.to_protocol());
    const cuda::clock_reading none;
    const cuda::clock_reading& cs = clocks_start ? *clocks_start : none;
    const cuda::clock_reading& ce = clocks_end ? *clocks_end : none;
    environment.clocks = protocol::clock_readings{cs.sm_mhz, ce.sm_mhz, cs.mem_mhz, ce.mem_mhz};
    if (fail)
        log_info("evaluate " + name + ": invalid (" + fail->kind + ")");
    else
        log_info("evaluate " + name + ": valid");
    result.environment = std::move(environment);
    result.eval_ms = ms_since(t_start);
    result.phases_ms = std::move(phases);
    if (profile_case)
        result.profiled = protocol::profiled_launch{*profile_case, "repeat", profiled};
    return out;
}
catch (const json_error& e)
{
    bad_request(e.what());
}

}  // namespace warpsmith::worker
