#include "harness/worker/interleaved.hpp"

#include "harness/cuda/cuda_error.hpp"
#include "harness/json/lenient.hpp"
#include "harness/timing/timing_stats.hpp"
#include "harness/worker/candidate_loader.hpp"
#include "harness/worker/evaluator.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/validator.hpp"
#include "harness/worker/watchdog.hpp"
#include "harness/workload/input_generator.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <random>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

constexpr int k_warmup_per_entry = 3;

struct entry
{
    std::string key;
    prepared_candidate prepared;
    launch_dims dims;
    std::vector<double> samples;
    int occurrences = 0;               ///< Launches queued so far in the current case.
    std::vector<std::size_t> checked;  ///< Which occurrences are validated (sorted).
};

std::uint64_t interleaved_sequence = 0;

}  // namespace

json::object time_interleaved(gpu_session& session, const json::object& request)
try
{
    const json_reader r(request, request_location("time_interleaved"));
    const int rounds = static_cast<int>(r.optional_int64("rounds", {1, 100'000}).value_or(30));
    timing_options timing = parse_timing(r.optional_object("timing"), "time_interleaved");
    const json::array& entries_json = r.require_array("entries");
    if (entries_json.empty())
        bad_request("time_interleaved: 'entries' is empty");

    case_store& store = session.store();
    gpu_device& device = session.device();
    std::vector<entry> entries;
    entries.reserve(entries_json.size());
    for (std::size_t i = 0; i < entries_json.size(); ++i)
    {
        const std::string where = "time_interleaved: 'entries[" + std::to_string(i) + "]'";
        if (!entries_json[i].is_object())
            bad_request(where + " must be an object");
        const json_reader er(entries_json[i].get_object(), request_location(where));
        entry& e = entries.emplace_back();
        e.key = er.require_string("key");
        for (std::size_t j = 0; j + 1 < entries.size(); ++j)
            if (entries[j].key == e.key)
                bad_request(where + ": key '" + e.key + "' is used twice");
        const json::value* cand = er.find("candidate");
        if (!cand)
            bad_request(where + ": 'candidate' is missing");
        e.prepared = prepare_candidate(
            *cand, where + ".candidate", session.compiler(), device.arch(), store.get_workload().sig);
        if (e.prepared.fail)
            bad_request(where + " ('" + e.key + "'): " + e.prepared.fail->kind + ": " +
                        e.prepared.fail->message);
    }

    const CUstream s = device.stream();
    const auto timeout = store.launch_timeout();
    std::vector<std::string> keys;
    keys.reserve(entries.size());
    for (const entry& e : entries)
        keys.push_back(e.key);
    const std::vector<std::string> schedule = interleaved_schedule(keys, rounds);
    std::map<std::string, std::size_t> index_of;
    for (std::size_t i = 0; i < entries.size(); ++i)
        index_of[entries[i].key] = i;

    event_pool& events = session.events();
    events.reserve(std::max<std::size_t>(schedule.size(), entries.size()));
    l2_scrubber& scrubber = session.scrubber();
    const double scrub_ms = timing.mode == timing_mode::cold ? scrubber.scrub_ms(s, timeout) : 0.0;
    // The same protections as a candidate's own timing (timer.hpp): state wipes before every
    // measured launch, checked launches drawn from the hidden seed, guards and inputs checked with
    // them, and the wall-clock cross-check. A confirmation decides the winner, so it must check at
    // least as much as the search did.
    validator v(device, session.helpers(), store);
    v.set_hygiene(&session.hygiene());
    timer t(device, session.helpers(), store, v, events, scrubber, &session.hygiene());
    check_area& ck = store.checks();
    constexpr int first_slot = 2;
    constexpr int slots = case_store::check_slots - first_slot;
    std::mt19937_64 rng(splitmix64_mix(store.hidden_seed() ^ 0x696e7465726c6561ull ^ ++interleaved_sequence));

    const std::uint32_t seal_phase = session.next_scrub_seed();
    store.retire_all(s);
    store.seal_digest(session.hygiene(), s, seal_phase, 0);

    // From here on entries launch: whatever stops the confirmation before the closing digest leaves
    // the harness's memory unchecked, so the worker reloads it (restart) rather than trust it.
    const auto confirm = [&]() -> json::object
    {
        json::object timings;
        json::object invalid;
        for (const entry& e : entries)
            timings[e.key] = json::object{};
        const auto is_invalid = [&](const entry& e) { return invalid.contains(e.key); };
        for (case_data& c : store.cases())
        {
            if (!c.is_performance())
                continue;
            const std::string where = "time_interleaved: case " + c.name();
            std::vector<timed_work> work(entries.size());
            for (std::size_t i = 0; i < entries.size(); ++i)
            {
                entry& e = entries[i];
                try
                {
                    e.dims =
                        e.prepared.cand.plan_for(c.name()).evaluate(e.prepared.cand.launch_variables(*c.wc));
                }
                catch (const std::exception& ex)
                {
                    bad_request(where + ", entry '" + e.key + "': " + ex.what());
                }
                if (std::string reason = prepare_launch(*e.prepared.kernel, e.dims, device.limits());
                    !reason.empty())
                    bad_request(where + ", entry '" + e.key + "': " + reason);
                e.samples.clear();
                e.occurrences = 0;
                e.checked = checked_positions(static_cast<std::size_t>(rounds),
                                              static_cast<std::size_t>(rounds),
                                              sampled_checks(static_cast<std::size_t>(rounds)),
                                              rng);
                work[i] = t.candidate_work(c, *e.prepared.kernel, e.dims);
            }

            // Warm-up, each entry in turn; the last warm-up launch of each is timed to size the chunks.
            store.prepare(c, input_set::stated, s);
            double slowest_ms = 0;
            for (std::size_t i = 0; i < entries.size(); ++i)
            {
                if (is_invalid(entries[i]))
                    continue;
                for (int w = 0; w < k_warmup_per_entry; ++w)
                    if (CUresult rc = t.queue_launch(
                            c,
                            work[i],
                            timing_mode::hot,
                            false,
                            w + 1 == k_warmup_per_entry ? std::optional<std::size_t>(i) : std::nullopt);
                        rc != CUDA_SUCCESS)
                        throw request_error(error_kind::internal,
                                            where + ", entry '" + entries[i].key + "': launch failed with " +
                                                cuda::error_name(rc));
                wait_for_stream(s, timeout, where + ", warm-up of '" + entries[i].key + "'");
                slowest_ms = std::max(slowest_ms, events.elapsed_us(i) / 1000.0);
            }
            const int chunk = chunk_size(slowest_ms + scrub_ms + 0.005, timeout);

            struct pending_check
            {
                std::size_t entry = 0;
                int occurrence = 0;
                int slot = 0;
                std::size_t position = 0;
            };
            std::vector<pending_check> pending;
            for (std::size_t start = 0; start < schedule.size();)
            {
                std::size_t j = start;
                for (; j < schedule.size() && j - start < static_cast<std::size_t>(chunk) &&
                       pending.size() < static_cast<std::size_t>(slots);
                     ++j)
                {
                    const std::size_t ei = index_of[schedule[j]];
                    entry& e = entries[ei];
                    if (is_invalid(e))
                        continue;
                    const int occurrence = e.occurrences++;
                    const bool checked = std::binary_search(
                        e.checked.begin(), e.checked.end(), static_cast<std::size_t>(occurrence));
                    if (checked)
                        store.prepare(c, input_set::stated, s);  // fresh poison, inputs and guards
                    if (CUresult rc = t.queue_launch(c, work[ei], timing.mode, true, j); rc != CUDA_SUCCESS)
                        throw request_error(
                            error_kind::internal,
                            where + ", entry '" + e.key + "': launch failed with " + cuda::error_name(rc));
                    if (checked)
                    {
                        const int slot = first_slot + static_cast<int>(pending.size());
                        ck.clear(slot, s);
                        v.enqueue_checks(
                            c, slot, output_source::working, expected_source::reference_stated, true);
                        // The check also refills the guards: what it finds is this entry's, and
                        // the check before the next refill counts only changes made by unchecked
                        // launches.
                        ck.fetch(slot, s);
                        pending.push_back(pending_check{ei, occurrence, slot, j});
                    }
                }
                wait_for_stream(s, timeout, where);
                for (std::size_t k = start; k < j; ++k)
                {
                    entry& e = entries[index_of[schedule[k]]];
                    if (!is_invalid(e) && e.samples.size() < static_cast<std::size_t>(e.occurrences))
                        e.samples.push_back(events.elapsed_us(k));
                }
                for (const pending_check& p : pending)
                {
                    entry& e = entries[p.entry];
                    if (is_invalid(e))
                        continue;
                    // Only the chunk's final launch still has its outputs in the working buffers.
                    const bool outputs_in_place = p.position + 1 == j;
                    run_report r = v.finish_checks(
                        c,
                        p.slot,
                        outputs_in_place ? output_source::working : output_source::unavailable,
                        expected_source::reference_stated,
                        run_kind::timed,
                        "interleaved confirmation, launch " + std::to_string(p.occurrence + 1) + " of " +
                            std::to_string(rounds) + " of '" + e.key + "'");
                    if (!r.passed && r.fail)
                        invalid[e.key] = r.fail->to_json();
                }
                pending.clear();
                start = j;
            }

            for (std::size_t i = 0; i < entries.size(); ++i)
            {
                entry& e = entries[i];
                if (is_invalid(e))
                    continue;
                timing_stats stats_value = timing_stats::from_samples(e.samples);
                json::object stats = stats_value.to_json().as_object();
                stats["mode"] = to_string(timing.mode);
                stats["warmup"] = k_warmup_per_entry;
                stats["checked_launches"] = static_cast<int>(e.checked.size());
                // The wall-clock cross-check, re-measured once before it invalidates (timer.hpp).
                const double limit = timer::wall_limit_us(stats_value.median_us);
                double wall = t.wall_check(c, work[i], timing.mode);
                double first = 0;
                if (wall > limit)
                {
                    first = wall;
                    wall = t.wall_check(c, work[i], timing.mode);
                    stats["wall_us_first"] = first;
                }
                stats["wall_us_per_launch"] = wall;
                if (wall > limit)
                {
                    invalid[e.key] =
                        failure{failure_kind::timing_inconsistent,
                                c.name(),
                                "case " + c.name() + " (interleaved confirmation): the host measures " +
                                    std::to_string(first) + " and then " + std::to_string(wall) +
                                    " us per launch (with cuCtxSynchronize) but the events only " +
                                    std::to_string(stats_value.median_us) +
                                    " us (limit 1.5 x events + 50 us): the events cannot account for the "
                                    "kernel's work"}
                            .to_json();
                    continue;
                }
                timings[e.key].as_object()[c.name()] = std::move(stats);
            }
        }
        // Back to rest: only the working buffers, which the confirmation used (and checked); a memo
        // an entry left anywhere else is still there for the closing digest.
        for (case_data& c : store.cases())
            store.retire(c, s);
        // The entries share each case's buffers, so a guard change that no checked launch saw
        // cannot be pinned on one of them by itself. When a checked launch already caught an entry
        // writing outside its buffers, that entry is invalid and the change is taken as its;
        // otherwise the confirmation is void, as when the seal breaks.
        if (const std::string damage = store.take_unchecked_guard_damage(s); !damage.empty())
        {
            const bool caught = std::any_of(invalid.begin(),
                                            invalid.end(),
                                            [](const auto& kv) {
                                                return lenient::string_at(kv.value(), "kind") ==
                                                       std::string(failure_kind::out_of_bounds_write);
                                            });
            if (!caught)
                throw request_error(
                    error_kind::internal,
                    "time_interleaved: an entry wrote outside its buffers, into " + damage +
                        ", in a launch that was not checked; the worker restarts to reload the "
                        "workload",
                    true);
        }
        store.seal_digest(session.hygiene(), s, seal_phase, 1);
        wait_for_stream(s, timeout, "time_interleaved: the seal check");
        if (std::string broken = store.seal_broken(); !broken.empty())
            throw request_error(error_kind::internal,
                                "time_interleaved: an entry wrote outside its buffers, into " + broken +
                                    "; the worker restarts to reload the workload",
                                true);
        return json::object{{"timings", std::move(timings)}, {"invalid", std::move(invalid)}};
    };
    try
    {
        return confirm();
    }
    catch (const request_error& e)
    {
        if (e.restart())
            throw;
        throw request_error(
            e.kind(), std::string(e.what()) + " (after entries launched: the worker restarts)", true);
    }
    catch (const cuda::cuda_error& e)
    {
        if (e.is_sticky())
            throw;
        throw request_error(error_kind::internal,
                            std::string("time_interleaved: ") + e.what() + " (the worker restarts)",
                            true);
    }
}
catch (const json_error& e)
{
    bad_request(e.what());
}

}  // namespace warpsmith::worker
