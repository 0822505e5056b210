#include "harness/worker/validator.hpp"

#include "harness/worker/device_buffers.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

constexpr std::size_t k_first_mismatches = 8;

double bits_to_double(std::uint64_t bits)
{
    return std::bit_cast<double>(bits);
}

std::string context_label(run_kind k)
{
    switch (k)
    {
        case run_kind::stated:
            return "stated inputs";
        case run_kind::hidden:
            return "hidden inputs";
        case run_kind::repeat:
            return "repeat run on the stated inputs";
        case run_kind::timed:
            return "timed launch";
    }
    return "";
}

}  // namespace

// ---- validator ----------------------------------------------------------------------------------

validator::validator(gpu_device& device, const helper_kernels& helpers, case_store& store)
    : device_(device), helpers_(helpers), store_(store)
{
}

CUdeviceptr validator::got_ptr(const buffer_slot& b, output_source got) const
{
    switch (got)
    {
        case output_source::working:
            return b.working.payload();
        case output_source::snapshot:
            return b.snapshot.ptr();
        default:
            return 0;
    }
}

CUdeviceptr validator::expected_ptr(const buffer_slot& b, expected_source expected) const
{
    switch (expected)
    {
        case expected_source::reference_stated:
            return b.reference[0].ptr();
        case expected_source::reference_hidden:
            return b.reference[1].ptr();
        case expected_source::snapshot:
            return b.snapshot.ptr();
    }
    return 0;
}

void validator::snapshot_outputs(case_data& c) const
{
    for (const buffer_slot& b : c.buffers)
        if (b.is_output())
            copy_device(device_.stream(), b.snapshot.ptr(), b.working.payload(), b.bytes);
}

run_report validator::run(
    case_data& c, loaded_kernel& k, const launch_dims& d, run_kind kind, std::uint32_t scrub_seed)
{
    const CUstream s = device_.stream();
    const input_set set = kind == run_kind::hidden ? input_set::hidden : input_set::stated;
    const std::string context = context_label(kind);
    const std::string where = "case " + c.name() + " (" + context + ")";

    store_.prepare(c, set, s);
    // Shared memory is not cleared between kernels: garbage that differs from run to run makes a
    // kernel that reads shared memory it never wrote disagree with itself (nondeterministic) or with
    // the reference, instead of passing by luck on whatever the previous kernel left there.
    // Every kernel, also one without shared memory of its own: each block has a reserved window
    // of shared memory that any kernel can load and store (launch_hygiene.hpp).
    helpers_.scrub_shared_memory(s, scrub_seed);
    // Module globals back to their load-time image and the local window wiped: nothing the
    // candidate's previous launches left behind is visible to this one (launch_hygiene.hpp).
    k.state.restore(s);
    if (hygiene_ && k.local_memory)
        hygiene_->scrub_local(s, scrub_seed);

    run_report report;
    report.kind = kind;
    CUresult rc = CUDA_SUCCESS;
    try
    {
        start_.record(s);
        const bool profiled = profiled_run_ == kind;
        // Without a profiler attached these are no-ops; their results say nothing about the kernel.
        if (profiled)
            (void)cuda::driver().cuProfilerStart();
        rc = launch_kernel(k, d, c.args->data(), s);
        if (profiled)
            (void)cuda::driver().cuProfilerStop();
        if (rc == CUDA_SUCCESS)
        {
            stop_.record(s);
            // The checks go right behind the launch; one wait covers both (a fault or a hang of
            // the kernel surfaces there).
            const expected_source expected = kind == run_kind::hidden ? expected_source::reference_hidden
                                                                      : expected_source::reference_stated;
            check_area& ck = store_.checks();
            ck.clear(0, s);
            enqueue_checks(c, 0, output_source::working, expected, true);
            if (kind == run_kind::repeat)
            {
                ck.clear(1, s);
                enqueue_checks(c, 1, output_source::working, expected_source::snapshot, false);
                ck.fetch(1, s);
            }
            ck.fetch(0, s);
            wait_for_stream(s, store_.launch_timeout(), where);
        }
    }
    catch (const cuda::cuda_error& e)
    {
        if (e.is_sticky())
            throw;
        rc = e.result();
    }
    if (rc != CUDA_SUCCESS)
    {
        // The outputs stay poisoned (nothing ran), and we stop here: a launch failure must never
        // let stale outputs from an earlier run be validated.
        std::string description = cuda::error_description(rc);
        report.passed = false;
        report.fail = failure{failure_kind::launch_failed,
                              c.name(),
                              where + ": launch failed with " + cuda::error_name(rc) +
                                  (description.empty() ? "" : " (" + description + ")") + "; grid " +
                                  format_dims(d.grid) + ", block " + format_dims(d.block) + ", " +
                                  std::to_string(d.shared_bytes) + " bytes of dynamic shared memory"};
        // Make sure nothing of this run is still queued before the next request uses the stream.
        wait_for_stream(s, store_.launch_timeout(), where);
        return report;
    }
    const float kernel_ms = cuda::event::elapsed_ms(start_, stop_);
    const expected_source expected =
        kind == run_kind::hidden ? expected_source::reference_hidden : expected_source::reference_stated;

    report = finish_checks(c, 0, output_source::working, expected, kind, context);
    report.kernel_ms = kernel_ms;
    if (kind == run_kind::repeat && report.passed)
    {
        run_report agreement =
            finish_checks(c, 1, output_source::working, expected_source::snapshot, kind, context);
        if (!agreement.passed)
        {
            // The counts of this run now describe the disagreement with the first run.
            report.passed = false;
            report.agrees_with_first = false;
            report.mismatches = agreement.mismatches;
            report.nonfinite = agreement.nonfinite;
            report.max_abs_error = agreement.max_abs_error;
            report.max_rel_error = agreement.max_rel_error;
            report.first_mismatches = std::move(agreement.first_mismatches);
            report.fail = std::move(agreement.fail);
        }
    }
    return report;
}

void validator::enqueue_checks(
    case_data& c, int slot, output_source got, expected_source expected, bool check_memory)
{
    const CUstream s = device_.stream();
    check_area& ck = store_.checks();
    if (check_memory)
    {
        // Guards: one launch covers both guards of every buffer, and puts back what it counts, so
        // that the check before the next refill counts only what later launches change.
        helpers_.check_guards(s,
                              c.guard_ranges.ptr(),
                              c.guard_range_count,
                              c.largest_guard_bytes,
                              guard_fill,
                              ck.guard_counter(slot, 0, 0),
                              guard_refill::yes);
        // Inputs: an `in` buffer must be bit-identical to its pristine copy afterwards. A kernel
        // that scribbles on its inputs would corrupt the next run's data (and the timing loop's).
        const input_set set =
            expected == expected_source::reference_hidden ? input_set::hidden : input_set::stated;
        for (std::size_t i = 0; i < c.buffers.size(); ++i)
        {
            const buffer_slot& b = c.buffers[i];
            if (b.is_pure_input())
                helpers_.diff_bytes(s,
                                    b.working.payload(),
                                    b.pristine[static_cast<std::size_t>(set)].ptr(),
                                    b.bytes,
                                    ck.input_diff(slot, i));
        }
    }
    for (std::size_t i = 0; i < c.buffers.size(); ++i)
    {
        const buffer_slot& b = c.buffers[i];
        const tolerance tol = store_.get_workload().tolerance_for(*b.p);
        if (b.is_output())
            helpers_.compare(s,
                             b.p->type,
                             got_ptr(b, got),
                             expected_ptr(b, expected),
                             static_cast<std::uint64_t>(b.count),
                             tol.atol,
                             tol.rtol,
                             ck.compare(slot, i),
                             mask_for(expected));
    }
}

reference_mask validator::mask_for(expected_source expected) const
{
    // References are stored masked (case_store), each input set with its own key; snapshots are the
    // candidate's own plain output.
    switch (expected)
    {
        case expected_source::reference_stated:
            return store_.mask(input_set::stated);
        case expected_source::reference_hidden:
            return store_.mask(input_set::hidden);
        case expected_source::snapshot:
            break;
    }
    return {};
}

element_value validator::read_element(const buffer_slot& b,
                                      CUdeviceptr base,
                                      std::uint64_t index,
                                      const reference_mask& mask) const
{
    element_value e;
    e.type = b.p->type;
    const std::size_t bytes = size_of(e.type);
    WARPSMITH_CU(cuMemcpyDtoH, &e.bits, base + index * bytes, bytes);
    const std::uint64_t low = bytes >= 8 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (8 * bytes)) - 1);
    e.bits ^= reference_mask_bits(mask, index) & low;
    return e;
}

std::vector<element_mismatch> validator::first_bad(const buffer_slot& b,
                                                   CUdeviceptr got,
                                                   CUdeviceptr expected,
                                                   const reference_mask& mask,
                                                   std::size_t limit) const
{
    // Repeated "smallest bad index >= start" searches give the first mismatches in index order
    // without sorting anything on the device; this runs only for a failing output.
    std::vector<element_mismatch> out;
    const tolerance tol = store_.get_workload().tolerance_for(*b.p);
    const auto n = static_cast<std::uint64_t>(b.count);
    std::uint64_t start = 0;
    while (out.size() < limit && start < n)
    {
        std::optional<std::uint64_t> index = store_.checks().find_index(
            device_.stream(),
            store_.launch_timeout(),
            [&](CUdeviceptr result)
            {
                helpers_.first_bad(
                    device_.stream(), b.p->type, got, expected, n, start, tol.atol, tol.rtol, result, mask);
            });
        if (!index)
            break;
        out.push_back(
            {b.p->name, *index, read_element(b, got, *index), read_element(b, expected, *index, mask)});
        start = *index + 1;
    }
    return out;
}

run_report validator::finish_checks(case_data& c,
                                    int slot,
                                    output_source got,
                                    expected_source expected,
                                    run_kind kind,
                                    const std::string& context)
{
    const check_area& ck = store_.checks();
    const std::string where = "case " + c.name() + " (" + context + ")";
    run_report r;
    r.kind = kind;

    // Totals over every output.
    std::vector<compare_counters> counters(c.buffers.size());
    for (std::size_t i = 0; i < c.buffers.size(); ++i)
    {
        const buffer_slot& b = c.buffers[i];
        if (!b.is_output())
            continue;
        counters[i] = ck.host_compare(slot, i);
        r.elements += static_cast<std::uint64_t>(b.count);
        r.unwritten += counters[i].unwritten;
        r.nonfinite += counters[i].nonfinite;
        r.mismatches += counters[i].mismatches;
        r.max_abs_error = std::max(r.max_abs_error, bits_to_double(counters[i].max_abs_bits));
        r.max_rel_error = std::max(r.max_rel_error, bits_to_double(counters[i].max_rel_bits));
    }

    // 1. Guards: the most basic memory-safety violation, and usually the root cause of any
    //    mismatch that comes with it, so it is reported first.
    for (std::size_t i = 0; i < c.buffers.size() && !r.fail; ++i)
    {
        const buffer_slot& b = c.buffers[i];
        const std::uint64_t before = ck.host_guard(slot, i, 0);
        const std::uint64_t after = ck.host_guard(slot, i, 1);
        if (before == 0 && after == 0)
            continue;
        r.guards_intact = false;
        std::string what;
        if (after > 0)
            what = std::to_string(after) + " bytes after its end";
        if (before > 0)
            what += (what.empty() ? "" : " and ") + std::to_string(before) + " bytes before its start";
        r.fail = failure{failure_kind::out_of_bounds_write,
                         c.name(),
                         where + ": the kernel wrote outside buffer " + b.p->name + " (" + what +
                             " changed); " + b.p->name + " has " + std::to_string(b.count) + " elements of " +
                             std::string(to_string(b.p->type)) + " (" + std::to_string(b.bytes) + " bytes)"};
    }

    // 2. Inputs: read-only buffers must come back bit-identical.
    for (std::size_t i = 0; i < c.buffers.size() && !r.fail; ++i)
    {
        const buffer_slot& b = c.buffers[i];
        if (!b.is_pure_input())
            continue;
        const std::uint64_t diff = ck.host_input_diff(slot, i);
        if (diff == 0)
            continue;
        r.inputs_intact = false;
        r.fail = failure{failure_kind::input_mutated,
                         c.name(),
                         where + ": input buffer " + b.p->name + " was modified (" + std::to_string(diff) +
                             " of " + std::to_string(b.bytes) +
                             " bytes differ from the inputs it was given); 'in' buffers are read-only"};
    }
    if (r.fail)
    {
        r.passed = false;
        return r;
    }

    // 3. Outputs, in order of severity: unwritten, non-finite, outside tolerance. The first output
    //    (in signature order) with the most severe problem is described.
    const auto pick = [&](auto member) -> std::optional<std::size_t>
    {
        for (std::size_t i = 0; i < c.buffers.size(); ++i)
            if (c.buffers[i].is_output() && counters[i].*member > 0)
                return i;
        return std::nullopt;
    };
    std::optional<std::size_t> bad;
    std::string_view base_kind;
    if ((bad = pick(&compare_counters::unwritten)))
        base_kind = failure_kind::unwritten;
    else if ((bad = pick(&compare_counters::nonfinite)))
        base_kind = failure_kind::nonfinite;
    else if ((bad = pick(&compare_counters::mismatches)))
        base_kind = failure_kind::mismatch;
    if (!bad)
        return r;

    r.passed = false;
    const buffer_slot& b = c.buffers[*bad];
    const compare_counters& cc = counters[*bad];
    const tolerance tol = store_.get_workload().tolerance_for(*b.p);
    const bool with_values = shows_values(kind);
    const CUdeviceptr got_base = got_ptr(b, got);
    const CUdeviceptr expected_base = expected_ptr(b, expected);
    const reference_mask mask = mask_for(expected);
    if (got_base != 0)
        r.first_mismatches = first_bad(b, got_base, expected_base, mask, k_first_mismatches);

    const bool against_previous = expected == expected_source::snapshot;
    const char* got_word = against_previous ? "second run" : "got";
    const char* expected_word = against_previous ? "first run" : "expected";
    const std::string count_text = " of " + std::to_string(b.count) + " elements";
    std::string message = where + ", output " + b.p->name + ": ";
    if (base_kind == failure_kind::unwritten)
    {
        message += std::to_string(cc.unwritten) + count_text + " not written (still poison)";
    }
    else if (base_kind == failure_kind::nonfinite)
    {
        message += std::to_string(cc.nonfinite) + count_text + " are NaN or Inf where the " +
                   (against_previous ? "first run's output" : "reference") + " is finite";
    }
    else
    {
        message += mismatch_text(
            tol, b.p->type, cc.mismatches, static_cast<std::uint64_t>(b.count), against_previous);
        const double max_abs = bits_to_double(cc.max_abs_bits);
        if (max_abs > 0 && got_base == 0)
            message += "; max abs err " + format_double(max_abs, 4);
        if (max_abs > 0 && got_base != 0)
        {
            std::optional<std::uint64_t> worst =
                store_.checks().find_index(device_.stream(),
                                           store_.launch_timeout(),
                                           [&](CUdeviceptr result)
                                           {
                                               helpers_.find_abs_error(device_.stream(),
                                                                       b.p->type,
                                                                       got_base,
                                                                       expected_base,
                                                                       static_cast<std::uint64_t>(b.count),
                                                                       cc.max_abs_bits,
                                                                       result,
                                                                       mask);
                                           });
            message += "; max abs err " + format_double(max_abs, 4);
            if (worst)
                message += " at [" + std::to_string(*worst) + "]";
            if (worst && with_values)
                message += " (" + std::string(got_word) + " " + read_element(b, got_base, *worst).to_text() +
                           ", " + expected_word + " " +
                           read_element(b, expected_base, *worst, mask).to_text() + ")";
        }
    }
    if (!r.first_mismatches.empty())
        message += "; first " +
                   std::string(base_kind == failure_kind::unwritten ? "unwritten" : "mismatches") + ": " +
                   list_elements(r.first_mismatches, kind, against_previous);
    if (!with_values)
        message += " (values on the hidden inputs are not shown)";

    // The kind depends on the run: a repeat that fails where the first run passed, or that
    // disagrees with the first run, is nondeterminism (uninitialised memory, races, state kept
    // across launches); any failure of a timed launch's output means behaviour differs when timed.
    std::string kind_text(base_kind);
    if (kind == run_kind::timed)
    {
        kind_text = failure_kind::timed_output_mismatch;
        message += " (this launch was timed; the validation runs before it passed)";
    }
    else if ((kind == run_kind::repeat || against_previous) && base_kind != failure_kind::unwritten)
    {
        kind_text = failure_kind::nondeterministic;
        message = (against_previous ? "a second run on the same inputs disagrees with the first run: "
                                    : "a second run on the same inputs fails where the first passed: ") +
                  message + " (uninitialised shared memory, a race, or state kept between launches?)";
    }
    else if (kind == run_kind::repeat)
    {
        message += " (the first run on these inputs wrote them: state kept between launches?)";
    }
    r.fail = failure{kind_text, c.name(), message};
    return r;
}

}  // namespace warpsmith::worker
