#include "harness/worker/timer.hpp"

#include "harness/core/elapsed.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

constexpr int k_max_chunk = 128;          // Never queue more than this before waiting.
constexpr int k_wall_launches = 3;        // Launches in the wall-clock cross-check (median of 3).
constexpr double k_wall_factor = 1.5;     // Wall may exceed the event median by this factor ...
constexpr double k_wall_slack_us = 50.0;  // ... plus this (launch and synchronisation latency).

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string format_us(double us)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", us);
    return text;
}

}  // namespace

// ---- event_pool, l2_scrubber --------------------------------------------------------------------

void event_pool::reserve(std::size_t n)
{
    while (pairs_.size() < n)
        pairs_.emplace_back(cuda::event(), cuda::event());
}

double event_pool::elapsed_us(std::size_t i) const
{
    return 1000.0 * static_cast<double>(cuda::event::elapsed_ms(start(i), stop(i)));
}

void l2_scrubber::allocate()
{
    if (buffer_.size() == 0)
        buffer_ = cuda::device_buffer(std::max<std::size_t>(l2_bytes_, 1 << 20) / 4 * 4);
}

void l2_scrubber::scrub(CUstream s)
{
    allocate();
    // A different value each time, so no layer could ever treat the scrub as redundant.
    ++counter_;
    if (hygiene_)
        hygiene_->scrub_sm(s, counter_, buffer_.ptr(), buffer_.size() / 16 * 16);
    else
        WARPSMITH_CU(cuMemsetD32Async, buffer_.ptr(), counter_, buffer_.size() / 4, s);
}

void l2_scrubber::scrub_shared(CUstream s)
{
    if (hygiene_)
        hygiene_->scrub_sm(s, ++counter_);
}

double l2_scrubber::scrub_ms(CUstream s, std::chrono::milliseconds timeout)
{
    if (!scrub_ms_)
    {
        allocate();
        cuda::event start, stop;
        scrub(s);  // First touch outside the measurement.
        start.record(s);
        scrub(s);
        stop.record(s);
        wait_for_stream(s, timeout, "L2 scrub");
        scrub_ms_ = cuda::event::elapsed_ms(start, stop);
    }
    return *scrub_ms_;
}

int chunk_size(double per_launch_ms, std::chrono::milliseconds timeout)
{
    const double budget_ms = static_cast<double>(timeout.count()) / 4.0;
    const double n = std::floor(budget_ms / std::max(per_launch_ms, 1e-3));
    return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(k_max_chunk)));
}

int warmup_launches(int most, double typical_ms)
{
    if (most <= 0)
        return 0;
    if (!(typical_ms > 0))
        return most;
    const double fit = std::ceil(warmup_budget_ms / typical_ms);
    return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(most)));
}

// ---- case_timing --------------------------------------------------------------------------------

protocol::timing_report case_timing::to_report() const
{
    protocol::timing_report r;
    if (stats.samples > 0)
        r.stats = stats;
    r.warmup = warmup;
    r.mode = mode;
    if (wall_us_per_launch > 0)
        r.wall_us_per_launch = wall_us_per_launch;
    if (wall_us_first > 0)
        r.wall_us_first = wall_us_first;
    r.checked_launches = checked_launches;
    r.stopped = stopped;
    r.target_rel_noise = target_rel_noise;
    r.rel_noise = rel_noise;
    r.suspect = suspect;
    r.timed_output_valid = timed_output_valid;
    return r;
}

// ---- timer --------------------------------------------------------------------------------------

std::size_t sampled_checks(std::size_t n)
{
    return std::clamp<std::size_t>((n * 8 + 99) / 100, 8, 16);
}

std::vector<std::size_t> checked_positions(std::size_t n,
                                           std::size_t horizon,
                                           std::size_t count,
                                           std::mt19937_64& rng)
{
    std::vector<std::size_t> positions;
    if (n == 0)
        return positions;
    // Candidates: [0, min(horizon, n) - 1), never the last (always checked anyway).
    const std::size_t pool = std::min(horizon, n) > 0 ? std::min(horizon, n) - 1 : 0;
    std::vector<std::size_t> all(pool);
    for (std::size_t i = 0; i < pool; ++i)
        all[i] = i;
    count = std::min(count, pool);
    for (std::size_t i = 0; i < count; ++i)  // Partial Fisher-Yates: the first count are a sample.
        std::swap(all[i], all[std::uniform_int_distribution<std::size_t>(i, pool - 1)(rng)]);
    positions.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
    positions.push_back(n - 1);
    std::sort(positions.begin(), positions.end());
    return positions;
}

std::vector<std::size_t> segmented_checked_positions(std::size_t n, std::size_t segment, std::mt19937_64& rng)
{
    constexpr std::size_t first_count = 8;
    constexpr std::size_t later_total = 8;
    constexpr std::size_t later_most = 2;
    std::vector<std::size_t> positions;
    if (n == 0)
        return positions;
    segment = std::max<std::size_t>(segment, 1);
    const std::size_t segments = (n + segment - 1) / segment;
    // How many checks each later segment gets: as even as the budget allows, at most 2, the
    // remainder on segments drawn with rng.
    std::vector<std::size_t> counts(segments, 0);
    counts[0] = first_count;
    if (segments > 1)
    {
        const std::size_t later = segments - 1;
        const std::size_t each = std::min(later_most, later_total / later);
        std::size_t left = std::min(later_total, later * later_most) - each * later;
        std::vector<std::size_t> order(later);
        for (std::size_t k = 0; k < later; ++k)
        {
            counts[k + 1] = each;
            order[k] = k + 1;
        }
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t k = 0; k < later && left > 0; ++k, --left)
            ++counts[order[k]];
    }
    for (std::size_t k = 0; k < segments; ++k)
    {
        const std::size_t begin = k * segment;
        const std::size_t end = std::min(n - 1, begin + segment);  // never n - 1 itself
        if (end <= begin)
            continue;
        std::vector<std::size_t> pool(end - begin);
        for (std::size_t i = 0; i < pool.size(); ++i)
            pool[i] = begin + i;
        const std::size_t count = std::min(counts[k], pool.size());
        for (std::size_t i = 0; i < count; ++i)  // Partial Fisher-Yates.
            std::swap(pool[i], pool[std::uniform_int_distribution<std::size_t>(i, pool.size() - 1)(rng)]);
        positions.insert(positions.end(), pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(count));
    }
    positions.push_back(n - 1);
    std::sort(positions.begin(), positions.end());
    return positions;
}

namespace
{

/// Half the median's 95% confidence interval over the median (0 without samples or a median of 0).
double relative_noise(const std::vector<double>& samples)
{
    if (samples.empty())
        return 0;
    const median_interval ci = median_confidence_interval(samples, 0.95);
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const double median = percentile_sorted(sorted, 0.5);
    return median > 0 ? (ci.upper - ci.lower) / 2 / median : 0;
}

double median_of_samples(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return percentile_sorted(samples, 0.5);
}

/// Seeds the checked-launch choice: the hidden seed (never shown to a model) and a sequence number
/// per time_case call in this worker, so no two timings check the same positions.
std::uint64_t timing_seed(std::uint64_t hidden_seed)
{
    static std::uint64_t sequence = 0;
    const auto mix = [](std::uint64_t z)
    {
        z += 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    return mix(hidden_seed ^ mix(++sequence ^ 0x636865636b6564ull));
}

}  // namespace

timer::timer(gpu_device& device,
             const helper_kernels& helpers,
             case_store& store,
             validator& v,
             event_pool& events,
             l2_scrubber& scrubber,
             const launch_hygiene* hygiene)
    : device_(device),
      helpers_(helpers),
      store_(store),
      validator_(v),
      events_(events),
      scrubber_(scrubber),
      hygiene_(hygiene),
      rng_(timing_seed(store.hidden_seed()))
{
}

CUresult timer::queue_launch(case_data& c,
                             const timed_work& work,
                             timing_mode mode,
                             bool measured,
                             std::optional<std::size_t> event_pair)
{
    const CUstream s = device_.stream();
    // Before a measured launch: fresh outputs (poison, restored inout), so that no launch can tell
    // a checked launch from an unchecked one by finding its previous results still there; the
    // work's own state wipes (module globals, local window); and the SM scrub, which in cold mode
    // is the L2 scrub too -- last, since the restore's copy and the poison memset would otherwise
    // leave the outputs in L2. A warm-up launch (never measured, never checked) gets none of it:
    // what it finds or skips changes no figure, and the first measured launch after it gets all
    // of it.
    if (measured)
        prepare_measured_launch(c, work, mode);
    if (event_pair)
        events_.start(*event_pair).record(s);
    CUresult rc = work.launch(s);
    if (rc == CUDA_SUCCESS && event_pair)
        events_.stop(*event_pair).record(s);
    return rc;
}

void timer::prepare_measured_launch(case_data& c, const timed_work& work, timing_mode mode)
{
    const CUstream s = device_.stream();
    store_.refresh_outputs(c, s);
    if (work.reset)
        work.reset(s);
    if (mode == timing_mode::cold)
        scrubber_.scrub(s);
    else
        scrubber_.scrub_shared(s);
}

case_timing timer::time_case(case_data& c,
                             loaded_kernel& k,
                             const launch_dims& d,
                             const timing_options& options,
                             double kernel_ms,
                             double typical_ms)
{
    return time_case(c, candidate_work(c, k, d), options, kernel_ms, typical_ms);
}

timed_work timer::candidate_work(case_data& c, loaded_kernel& k, const launch_dims& d)
{
    timed_work work{[&k, &d, &c](CUstream s) { return launch_kernel(k, d, c.args->data(), s); }, true, {}};
    const launch_hygiene* hygiene = hygiene_;
    const std::uint32_t seed = static_cast<std::uint32_t>(rng_());
    work.reset = [&k, hygiene, seed](CUstream s)
    {
        k.state.restore(s);
        if (hygiene && k.local_memory)
            hygiene->scrub_local(s, seed);
    };
    return work;
}

case_timing timer::time_case(
    case_data& c, const timed_work& work, const timing_options& options, double kernel_ms, double typical_ms)
{
    const CUstream s = device_.stream();
    const auto timeout = store_.launch_timeout();
    const std::string where = "case " + c.name() + " (timing)";
    case_timing t;
    t.warmup = warmup_launches(options.warmup, typical_ms);
    t.mode = options.mode;

    const double scrub_ms = options.mode == timing_mode::cold ? scrubber_.scrub_ms(s, timeout) : 0.0;
    const double per_launch_ms = std::max(kernel_ms, 0.001) + scrub_ms + 0.005;
    const int chunk = chunk_size(per_launch_ms, timeout);
    const auto n = static_cast<std::size_t>(options.iterations);
    events_.reserve(n);

    const auto launch_failure = [&](CUresult rc)
    {
        t.fail = failure{failure_kind::launch_failed,
                         c.name(),
                         where + ": launch failed with " + cuda::error_name(rc) +
                             " during timing (it had launched fine during validation)"};
        wait_for_stream(s, timeout, where);
        return t;
    };

    // Warm-up: back-to-back launches without events or scrubs. Their job is to bring clocks, the
    // instruction cache and the driver's launch path to steady state; an L2 scrub before each would
    // add a memset per warm-up launch to every candidate's cost and change nothing about that. No
    // state wipes either: whatever a warm-up launch leaves is wiped before the first measured one.
    using host_clock = std::chrono::steady_clock;
    const auto t_warmup = host_clock::now();
    store_.prepare(c, input_set::stated, s);
    for (int w = 0, queued = 0; w < t.warmup; ++w)
    {
        if (CUresult rc = queue_launch(c, work, timing_mode::hot, false, std::nullopt); rc != CUDA_SUCCESS)
            return launch_failure(rc);
        if (++queued == chunk)
        {
            wait_for_stream(s, timeout, where + ", warm-up");
            queued = 0;
        }
    }
    wait_for_stream(s, timeout, where + ", warm-up");
    t.warmup_ms = ms_since(t_warmup);

    // Adaptive: segments of timing_segment_launches, a decision after each (timer.hpp); the
    // checked launches are spread over the segments so that every segment a case may end after
    // has its own.
    const std::optional<double> dominated_above = [&]() -> std::optional<double>
    {
        auto it = options.dominated_above_us.find(c.name());
        if (it != options.dominated_above_us.end() && it->second > 0)
            return it->second;
        return std::nullopt;
    }();
    const bool adaptive = options.target_rel_noise > 0;
    const bool may_stop_early = adaptive || dominated_above.has_value();
    const auto segment = static_cast<std::size_t>(timing_segment_launches);
    t.target_rel_noise = adaptive ? options.target_rel_noise : 0.0;
    t.stopped = adaptive ? timing_stop::ceiling : timing_stop::fixed;
    std::vector<std::size_t> positions = may_stop_early ? segmented_checked_positions(n, segment, rng_)
                                                        : checked_positions(n, n, sampled_checks(n), rng_);
    positions.pop_back();  // n - 1: the last launch is handled below (it may come earlier).

    check_area& ck = store_.checks();
    constexpr int first_timed_slot = 2;
    struct pending_check
    {
        std::size_t launch = 0;
        int slot = 0;
        bool last = false;
    };
    std::vector<pending_check> pending;
    // One memset for the slots of every check this timing can make (the sampled ones and the
    // last), one copy back at the end.
    const int check_slots_used = static_cast<int>(positions.size()) + 1;
    ck.clear(first_timed_slot, check_slots_used, s);
    std::size_t next_position = 0;
    bool stop = false;
    bool done = false;
    std::vector<double> samples;
    samples.reserve(n);
    std::size_t i = 0;          // launches queued
    std::size_t collected = 0;  // launches whose samples are in `samples` (waited on)
    const auto t_measure = host_clock::now();
    while (!done)
    {
        // At most `chunk` launches are ever queued and not waited on (the launch timeout's share),
        // and when the case may stop early, queueing pauses at the end of each segment.
        std::size_t end = collected + static_cast<std::size_t>(chunk);
        if (may_stop_early && !stop)
            end = std::min(end, (i / segment + 1) * segment);
        while (!done && i < end)
        {
            const bool last = i + 1 == n || stop;
            const bool sampled = next_position < positions.size() && positions[next_position] == i;
            if (sampled)
                ++next_position;
            const bool checked = last || sampled;
            // The guards checked (what unchecked launches changed) and refilled. Not the inputs: the
            // check after the launch compares them with their pristine copy, so a change any
            // launch since the warm-up's prepare() made fails the case.
            if (checked)
                store_.refresh_guards(c, s);
            if (CUresult rc = queue_launch(c, work, options.mode, true, i); rc != CUDA_SUCCESS)
                return launch_failure(rc);
            if (checked)
            {
                const int slot = first_timed_slot + static_cast<int>(pending.size());
                validator_.enqueue_checks(
                    c, slot, output_source::working, expected_source::reference_stated, true);
                pending.push_back(pending_check{i, slot, last});
            }
            done = last;
            ++i;
        }
        // A segment's decision waits only for its launches before the last
        // decision_in_flight_launches: those keep the GPU busy while the host decides and queues what
        // follows, so the decision costs no idle gap (the next decision sees them).
        const bool decision = !done && may_stop_early && !stop && i % segment == 0;
        std::size_t upto = i;
        if (decision && i - collected > decision_in_flight_launches)
        {
            upto = i - decision_in_flight_launches;
            wait_for_event(events_.stop(upto - 1).get(), timeout, where);
        }
        else
            wait_for_stream(s, timeout, where);
        for (std::size_t j = collected; j < upto; ++j)
            samples.push_back(events_.elapsed_us(j));
        collected = upto;
        if (decision)
        {
            if (dominated_above && median_of_samples(samples) > *dominated_above)
            {
                stop = true;
                t.stopped = timing_stop::dominated;
            }
            else if (adaptive && noise_below(samples, options.target_rel_noise, first_decision_samples))
            {
                stop = true;
                t.stopped = timing_stop::quiet;
            }
        }
    }

    t.measure_ms = ms_since(t_measure);
    const auto t_checks = host_clock::now();
    ck.fetch(first_timed_slot, static_cast<int>(pending.size()), s);
    wait_for_stream(s, timeout, where + ", checks");
    const std::string total = std::to_string(samples.size());
    for (const pending_check& p : pending)
        t.timed_runs.push_back(
            validator_.finish_checks(c,
                                     p.slot,
                                     p.last ? output_source::working : output_source::unavailable,
                                     expected_source::reference_stated,
                                     run_kind::timed,
                                     "timed launch " + std::to_string(p.launch + 1) + " of " + total));
    t.checked_launches = static_cast<int>(pending.size());
    for (const run_report& r : t.timed_runs)
    {
        if (!r.passed)
        {
            t.timed_output_valid = false;
            const bool memory_violated = !r.guards_intact || !r.inputs_intact;
            if (!t.fail && (work.output_must_pass || memory_violated))
                t.fail = r.fail;
        }
    }

    t.stats = timing_stats::from_samples(samples);
    t.rel_noise = relative_noise(samples);
    if (t.stopped == timing_stop::ceiling && t.rel_noise < options.target_rel_noise)
        t.stopped = timing_stop::quiet;  // quiet only at the ceiling (or n below one segment)
    for (double us : samples)
        t.gpu_ms += us / 1000.0;
    t.untimed_launches = t.warmup;
    t.l2_scrubs = options.mode == timing_mode::cold ? static_cast<int>(samples.size()) : 0;
    t.l2_scrub_ms = t.l2_scrubs * scrub_ms;

    t.checks_ms = ms_since(t_checks);

    if (!t.fail)
    {
        const auto t_wall = host_clock::now();
        const double limit = wall_limit_us(t.stats.median_us);
        t.wall_us_per_launch = wall_check(c, work, options.mode);
        t.untimed_launches += k_wall_launches;
        t.l2_scrubs += options.mode == timing_mode::cold ? k_wall_launches : 0;
        t.l2_scrub_ms += options.mode == timing_mode::cold ? k_wall_launches * scrub_ms : 0.0;
        if (t.wall_us_per_launch > limit)
        {
            // Once more before judging: another process on the GPU can stretch one cross-check.
            t.wall_us_first = t.wall_us_per_launch;
            t.wall_us_per_launch = wall_check(c, work, options.mode);
            t.untimed_launches += k_wall_launches;
            t.l2_scrubs += options.mode == timing_mode::cold ? k_wall_launches : 0;
            t.l2_scrub_ms += options.mode == timing_mode::cold ? k_wall_launches * scrub_ms : 0.0;
        }
        if (t.wall_us_per_launch > limit)
        {
            t.suspect = true;
            t.fail =
                failure{failure_kind::timing_inconsistent,
                        c.name(),
                        "case " + c.name() + ": the host measures " + format_us(t.wall_us_first) +
                            " and then " + format_us(t.wall_us_per_launch) +
                            " us per launch (with cuCtxSynchronize, two cross-checks) but the events only " +
                            format_us(t.stats.median_us) +
                            " us (limit 1.5 x events + 50 us): the events "
                            "cannot account for the kernel's work (work outside the launch's stream?)"};
        }
        t.wall_check_ms = ms_since(t_wall);
    }
    return t;
}

double timer::wall_limit_us(double event_median_us)
{
    return k_wall_factor * event_median_us + k_wall_slack_us;
}

double timer::wall_check(case_data& c, const timed_work& work, timing_mode mode)
{
    const CUstream s = device_.stream();
    const auto timeout = store_.launch_timeout();
    const std::string where = "case " + c.name() + " (wall-clock check)";
    std::vector<double> walls;
    for (int r = 0; r < k_wall_launches; ++r)
    {
        prepare_measured_launch(c, work, mode);
        wait_for_stream(s, timeout, where);
        const auto t0 = std::chrono::steady_clock::now();
        CUresult rc = work.launch(s);
        if (rc != CUDA_SUCCESS)
            throw cuda::cuda_error(rc, "cuLaunchKernel");
        wait_for_stream(s, timeout, where);
        // The stream is done; the context may not be (work pushed to other streams or child grids).
        WARPSMITH_CU(cuCtxSynchronize);
        const auto t1 = std::chrono::steady_clock::now();
        walls.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    return median_of(std::move(walls));
}

}  // namespace warpsmith::worker
