#include "harness/worker/interleaved.hpp"

#include "harness/timing/timing_stats.hpp"
#include "harness/worker/candidate_loader.hpp"
#include "harness/worker/evaluator.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>

namespace warpsmith::worker {

namespace json = boost::json;

namespace {

constexpr int k_warmup_per_entry = 3;

struct entry
{
    std::string key;
    prepared_candidate prepared;
    launch_dims dims;
    std::vector<double> samples;
};

}  // namespace

json::object time_interleaved(gpu_session& session, const json::object& request)
{
    field_reader r(request, "time_interleaved");
    const int rounds = static_cast<int>(r.optional_int("rounds", 1, 100'000).value_or(30));
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
        field_reader er(entries_json[i].get_object(), where);
        entry& e = entries.emplace_back();
        e.key = er.require_string("key");
        for (std::size_t j = 0; j + 1 < entries.size(); ++j)
            if (entries[j].key == e.key)
                bad_request(where + ": key '" + e.key + "' is used twice");
        const json::value* cand = er.find("candidate");
        if (!cand)
            bad_request(where + ": 'candidate' is missing");
        e.prepared = prepare_candidate(*cand, where + ".candidate", session.compiler(), device.arch());
        if (e.prepared.fail)
            bad_request(where + " ('" + e.key + "'): " + e.prepared.fail->kind + ": " + e.prepared.fail->message);
    }

    const CUstream s = device.stream();
    const auto timeout = store.launch_timeout();
    std::vector<std::string> keys;
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

    json::object timings;
    for (const entry& e : entries)
        timings[e.key] = json::object{};
    for (case_data& c : store.cases())
    {
        if (!c.is_performance())
            continue;
        const std::string where = "time_interleaved: case " + c.name();
        for (entry& e : entries)
        {
            try
            {
                e.dims = e.prepared.cand.plan_for(c.name()).evaluate(e.prepared.cand.launch_variables(*c.wc));
            }
            catch (const std::exception& ex)
            {
                bad_request(where + ", entry '" + e.key + "': " + ex.what());
            }
            if (std::string reason = prepare_launch(*e.prepared.kernel, e.dims, device.limits()); !reason.empty())
                bad_request(where + ", entry '" + e.key + "': " + reason);
            e.samples.clear();
        }

        const auto queue = [&](entry& e, std::optional<std::size_t> pair) {
            // Fresh outputs before every launch, as in timer.cpp: no entry may find results left by
            // an earlier launch (its own or another entry's) and skip its work.
            store.refresh_outputs(c, s);
            if (timing.mode == timing_mode::cold)
                scrubber.scrub(s);
            if (pair)
                events.start(*pair).record(s);
            CUresult rc = launch_kernel(*e.prepared.kernel, e.dims, c.args->data(), s);
            if (rc != CUDA_SUCCESS)
                throw request_error(error_kind::internal, where + ", entry '" + e.key + "': launch failed with " +
                                                              cuda::error_name(rc));
            if (pair)
                events.stop(*pair).record(s);
        };

        // Warm-up, each entry in turn; the last warm-up launch of each is timed to size the chunks.
        store.prepare(c, input_set::stated, s);
        double slowest_ms = 0;
        for (std::size_t i = 0; i < entries.size(); ++i)
        {
            for (int w = 0; w < k_warmup_per_entry; ++w)
                queue(entries[i], w + 1 == k_warmup_per_entry ? std::optional<std::size_t>(i) : std::nullopt);
            wait_for_stream(s, timeout, where + ", warm-up of '" + entries[i].key + "'");
            slowest_ms = std::max(slowest_ms, events.elapsed_us(i) / 1000.0);
        }
        const int chunk = chunk_size(slowest_ms + scrub_ms + 0.005, timeout);

        for (std::size_t start = 0; start < schedule.size();)
        {
            const std::size_t end = std::min(schedule.size(), start + static_cast<std::size_t>(chunk));
            for (std::size_t j = start; j < end; ++j)
                queue(entries[index_of[schedule[j]]], j);
            wait_for_stream(s, timeout, where);
            for (std::size_t j = start; j < end; ++j)
                entries[index_of[schedule[j]]].samples.push_back(events.elapsed_us(j));
            start = end;
        }
        for (entry& e : entries)
        {
            json::object stats = timing_stats::from_samples(e.samples).to_json().as_object();
            stats["mode"] = to_string(timing.mode);
            stats["warmup"] = k_warmup_per_entry;
            timings[e.key].as_object()[c.name()] = std::move(stats);
        }
    }
    return json::object{{"timings", std::move(timings)}};
}

}  // namespace warpsmith::worker
