#pragma once

// The evaluation cache of `warpsmith tune` (SPEC §6 "Evaluations are cached per workload + device";
// docs/autotune.md, "Evaluation cache"): the GPU results of candidates, so that a tune resumes,
// a second strategy re-uses what a first one measured, and a strategy can be replayed offline,
// all without touching the GPU again.
//
// One file per workload and device, JSON lines:
//   <dir>/<workload name>-<16 hex digits>.jsonl      (dir: default <results>/eval-cache)
// where the digits are a SHA-256 prefix of the workload identity and the device name and arch.
// Each line is one evaluation:
//   {"format": "warpsmith-eval-cache-1", "key": "<sha256>", "point": {"BM": 128, ...},
//    "valid": true, "score_us": 812.3, "case_median_us": {...}, "failure_kind": null,
//    "result": {<worker evaluation result>}, "candidate": "c0007", "run": "run-003", "time": "...",
//    "device": {"name": "NVIDIA H200", "arch": "sm_90", "max_threads_per_block": 1024, ...}}
// The key is the SHA-256 of the workload identity (workload_identity()), the device name and
// arch, the timing options, and the candidate: source, entry, options, defines, launch plan and
// overrides. Later lines win over earlier ones with the same key.
//
// Beside it, <workload name>-<16 hex digits>.context.json holds the baselines of the tune that last
// used the cache (context_file_of).
// Appends are safe between processes sharing a file: each line is written with one write(2) on an
// O_APPEND descriptor under an exclusive flock, after a newline if a crash left a torn last line.
// Readers skip torn and malformed lines, and pick up lines other processes appended since.

#include "harness/protocol/evaluation_result.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::autotune
{

/// What identifies a workload for caching: workload::to_json() without what cannot change a
/// candidate's evaluation (description, tunables, restrictions, the initial kernel, the vendor
/// baselines and the roofline).
boost::json::object workload_identity(const workload& w);

struct cache_entry
{
    std::string key;
    boost::json::object point;  ///< The candidate's defines.
    bool valid = false;
    std::optional<double> score_us;
    std::map<std::string, double> case_median_us;
    std::string failure_kind;            ///< When !valid.
    protocol::evaluation_result result;  ///< The worker's evaluation result.
    std::string candidate;               ///< Provenance: candidate id and run that measured it.
    std::string run;
    std::string time;
    /// The device it was measured on: name, arch and the limits the search space is pruned by
    /// (so that an offline replay builds the same space). Filled in by evaluation_cache::store.
    boost::json::object device;

    boost::json::object to_json() const;
    /// nullopt when v is not an entry of the current format.
    static std::optional<cache_entry> from_json(const boost::json::value& v);
};

/// Whether an evaluation result is worth caching: valid ones and deterministic failures. A crashed
/// worker or an inconsistent timing says more about the machine than about the candidate.
bool cacheable_result(const protocol::evaluation_result& result);

/// A cache entry for an evaluation result (score and medians derived from it).
cache_entry make_cache_entry(const std::string& key,
                             const candidate& c,
                             const protocol::evaluation_result& result,
                             const std::string& candidate_id,
                             const std::string& run);

class evaluation_cache
{
public:
    /// The cache of workload w on device (device_info: "name", "arch") with the given timing
    /// options, in dir. Reads the file when it exists; creates dir on the first store.
    evaluation_cache(const workload& w,
                     const boost::json::object& device,
                     const boost::json::object& timing,
                     const std::filesystem::path& dir);

    /// <results>/eval-cache.
    static std::filesystem::path default_dir(const std::filesystem::path& results_dir);
    /// The cache files of workload w in dir (one per device), sorted.
    static std::vector<std::filesystem::path> files_for(const workload& w, const std::filesystem::path& dir);
    /// The device recorded in a cache file's first entry (offline replay), or nullopt.
    static std::optional<boost::json::object> device_of(const std::filesystem::path& file);

    /// The key of a candidate's evaluation.
    std::string key(const candidate& c) const;

    /// The entry for key; on a miss, first reads what other processes appended since.
    std::optional<cache_entry> lookup(const std::string& key);
    /// Appends an entry (and keeps it in memory). Throws user_error when the file cannot be written.
    void store(const cache_entry& e);

    const std::filesystem::path& file() const { return file_; }

    /// Beside the cache file, <workload>-<digits>.context.json: what the tune that last used this
    /// cache measured besides its points (the reference, the initial kernel and vendor baselines
    /// per case, the device with its measured ceilings, the run), so that an offline replay prints
    /// the same per-case table as the GPU run. Written whole (a temporary file renamed).
    static std::filesystem::path context_file_of(const std::filesystem::path& cache_file);
    void write_context(const boost::json::object& context) const;
    /// The context of a cache file; nullopt when there is none or it cannot be read.
    static std::optional<boost::json::object> read_context(const std::filesystem::path& cache_file);
    std::size_t size() const;
    std::size_t skipped_lines() const { return skipped_; }
    /// Every entry, in file order with later duplicates replacing earlier ones.
    std::vector<cache_entry> entries();

private:
    void refresh();

    std::filesystem::path file_;
    std::string identity_digest_;
    std::string device_;
    std::string arch_;
    boost::json::object device_json_;
    std::string timing_;
    mutable std::mutex mutex_;
    std::map<std::string, cache_entry> entries_;
    std::vector<std::string> order_;
    std::uintmax_t read_offset_ = 0;
    std::size_t skipped_ = 0;
};

}  // namespace warpsmith::autotune
