#include "harness/worker/baseline.hpp"

#include "harness/core/elapsed.hpp"
#include "harness/core/log.hpp"
#include "harness/protocol/baseline_result.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/worker/evaluator.hpp"
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

/// The working (payload) pointer of a case's buffer parameter.
CUdeviceptr buffer_ptr(const case_data& c, const std::string& name)
{
    for (const buffer_slot& b : c.buffers)
        if (b.p->name == name)
            return b.working.payload();
    // The workload parser checked that the declaration names buffers of the signature.
    throw std::logic_error("baseline: buffer '" + name + "' is not in case " + c.name());
}

}  // namespace

baseline_request parse_baseline_request(const json::object& request)
try
{
    const json_reader r(request, request_location("baseline"));
    baseline_request out;
    out.kind = r.require_string("kind");
    if (out.kind != baseline_kind_cublas_sgemm)
        throw request_error(error_kind::no_baseline,
                            "baseline: unknown kind '" + out.kind + "' (this worker knows cublas_sgemm)");
    const std::string math = r.optional_string("math").value_or("fp32");
    if (math == "fp32")
        out.math = cuda::gemm_math::fp32;
    else if (math == "tf32")
        out.math = cuda::gemm_math::tf32;
    else
        bad_request("baseline: 'math' must be \"fp32\" or \"tf32\", not \"" + math + "\"");
    out.name = r.optional_string("name");
    out.cases = r.optional_strings("cases");
    out.timing = parse_timing(r.optional_object("timing"), "baseline");
    return out;
}
catch (const json_error& e)
{
    bad_request(e.what());
}

const baseline_spec& select_baseline(const workload& w, const baseline_request& r)
{
    for (const baseline_spec& b : w.baselines)
        if (b.kind == r.kind && (!r.name || b.name == *r.name))
            return b;
    if (r.name)
        throw request_error(error_kind::no_baseline,
                            "baseline: workload '" + w.name + "' declares no " + r.kind +
                                " baseline named '" + *r.name + "'");
    throw request_error(
        error_kind::no_baseline,
        "baseline: workload '" + w.name + "' declares no " + r.kind + " baseline (\"baselines\")");
}

json::object run_baseline(gpu_session& session, const json::object& request)
{
    const auto t_start = clock::now();
    const baseline_request req = parse_baseline_request(request);
    case_store& store = session.store();
    const workload& wl = store.get_workload();
    const baseline_spec& spec = select_baseline(wl, req);
    for (const std::string& case_name : req.cases)
        if (!store.find(case_name))
            bad_request("baseline: 'cases' names '" + case_name + "', which is not a case of workload '" +
                        wl.name + "'");

    std::string why;
    if (!cuda::cublas_available(&why))
        throw request_error(error_kind::no_baseline, "baseline: " + why);
    const cuda::cublas_api& api = cuda::cublas();

    gpu_device& device = session.device();
    const CUstream s = device.stream();
    const auto timeout = store.launch_timeout();
    const std::string label = "cuBLAS " + std::string(cuda::to_string(req.math));
    const std::string where = "baseline " + spec.name + " (" + label + ")";

    protocol::baseline_result result;
    result.name = spec.name;
    result.kind = spec.kind;
    result.math = std::string(cuda::to_string(req.math));
    result.library = protocol::library_info{api.library, api.version};
    std::vector<double> medians;
    bool within_tolerance = true;
    double max_abs = 0, max_rel = 0;
    double validate_ms = 0, time_ms = 0;
    std::optional<cuda::clock_reading> clocks_start, clocks_end;
    try
    {
        cuda::cublas_handle handle(s, req.math);
        validator v(device, session.helpers(), store);
        timer t(device, session.helpers(), store, v, session.events(), session.scrubber());
        cuda::event start, stop;
        clocks_start = device.clocks();
        for (case_data& c : store.cases())
        {
            if (!req.cases.empty() &&
                std::find(req.cases.begin(), req.cases.end(), c.name()) == req.cases.end())
                continue;
            const gemm_shape g = wl.baseline_shape(spec, *c.wc);
            const CUdeviceptr a = buffer_ptr(c, spec.a);
            const CUdeviceptr b = buffer_ptr(c, spec.b);
            const CUdeviceptr out = buffer_ptr(c, spec.c);
            const auto launch = [&handle, g, a, b, out](CUstream) -> CUresult
            {
                handle.sgemm_row_major(
                    static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), a, b, out);
                return CUDA_SUCCESS;
            };

            // Validation: one call on the stated inputs (fresh poison and guards), checked like a
            // candidate's stated run; the first call also warms cuBLAS up (its kernels load lazily).
            const auto t_validate = clock::now();
            const std::string case_where = "case " + c.name() + " (" + label + ")";
            store.prepare(c, input_set::stated, s);
            start.record(s);
            launch(s);
            stop.record(s);
            wait_for_stream(s, timeout, case_where);
            const double kernel_ms = cuda::event::elapsed_ms(start, stop);
            check_area& ck = store.checks();
            ck.clear(0, s);
            v.enqueue_checks(c, 0, output_source::working, expected_source::reference_stated, true);
            ck.fetch(0, s);
            wait_for_stream(s, timeout, "checks of " + case_where);
            run_report report = v.finish_checks(c,
                                                0,
                                                output_source::working,
                                                expected_source::reference_stated,
                                                run_kind::stated,
                                                label + ", stated inputs");
            validate_ms += ms_since(t_validate);
            within_tolerance = within_tolerance && report.passed;
            max_abs = std::max(max_abs, report.max_abs_error);
            max_rel = std::max(max_rel, report.max_rel_error);
            protocol::baseline_case bc;
            bc.name = c.name();
            bc.role = std::string(to_string(c.wc->role));
            bc.gemm = protocol::gemm_dims{g.m, g.n, g.k};
            bc.validation = report.to_protocol();
            if (report.fail)
                bc.validation_message = report.fail->message;
            if (c.is_performance())
            {
                const auto t_time = clock::now();
                const timed_work work{launch, false, {}};
                const case_timing ct = t.time_case(c, work, req.timing, kernel_ms);
                time_ms += ms_since(t_time);
                bc.timing = ct.to_report();
                within_tolerance = within_tolerance && ct.timed_output_valid;
                bc.timing_failure = ct.fail;
                if (ct.stats.samples > 0 && ct.stats.median_us > 0)
                {
                    result.case_median_us[c.name()] = ct.stats.median_us;
                    medians.push_back(ct.stats.median_us);
                }
            }
            result.cases.push_back(std::move(bc));
        }
        clocks_end = device.clocks();
        // Back to rest, and whatever the library changed in a guard is not a later candidate's
        // doing: the counts of unchecked guard changes start from zero for the next request.
        for (case_data& c : store.cases())
            store.retire(c, s);
        if (const std::string damage = store.take_unchecked_guard_damage(s); !damage.empty())
            log_warn(where + ": the library changed " + damage + " in a launch that was not checked");
    }
    catch (const cuda::cublas_error& e)
    {
        // A library failure may be the echo of a fault: surface a sticky error as such (the stream
        // reports it), so the request loop restarts the worker; otherwise it is the library's.
        wait_for_stream(s, timeout, where);
        throw request_error(error_kind::internal, where + ": " + e.what());
    }

    protocol::environment_info environment = session.environment();
    const cuda::clock_reading none;
    const cuda::clock_reading& cs = clocks_start ? *clocks_start : none;
    const cuda::clock_reading& ce = clocks_end ? *clocks_end : none;
    environment.clocks = protocol::clock_readings{cs.sm_mhz, ce.sm_mhz, cs.mem_mhz, ce.mem_mhz};
    log_info(where + ": " + std::to_string(result.cases.size()) + " cases, " +
             (within_tolerance ? "within" : "outside") + " the workload's tolerance");
    if (!medians.empty())
        result.score_us = geometric_mean(medians);
    result.within_tolerance = within_tolerance;
    result.max_abs_error = max_abs;
    result.max_rel_error = max_rel;
    result.environment = std::move(environment);
    result.phases_ms = {{"validate_ms", validate_ms}, {"time_ms", time_ms}};
    result.eval_ms = ms_since(t_start);
    return json::object{{"baseline", result.to_json()}};
}

}  // namespace warpsmith::worker
