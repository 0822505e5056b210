#pragma once

// The cheat manifests (docs/workloads.md "Cheats", docs/hardening.md): tests/cheats/cheats.json (the
// cheat library) and tests/cheats/hardening/hardening.json (the kernels that check the holes closed
// by the hardening work). Both are arrays of {"name", "file", "workload", "entry", "launch",
// "expect", "why"} with optional "defines" {NAME: integer} and "options" [NVRTC option]; "file" and
// "workload" are relative to the repository root, "expect" is a failure kind, an array of them, or
// "valid". "expect_any": [kinds] may stand instead of "expect" (one of the two, not both), for
// attacks whose outcome depends on the hardware ("valid" among them). Optional "twin_defines"
// {NAME: integer or "integer"} names the honest twin: the same file compiled with these defines on
// top of "defines", i.e. the same compute path with the cheating compiled out; when the cheat comes
// back valid its median must be at least k_twin_ratio times the twin's (both with the full default
// timing), otherwise the cheat gained something. Optional "state": true marks attacks that keep
// state between launches (for tests that run them through a whole optimization).
//
// The reader lives in bench/support (library warpsmith_bench_support) because both the cheat tests
// and bench/cheat_recovery use it, and bench/ must not depend on tests/: tests link this library,
// bench only reads the manifests (data files) at run time.

#include "harness/compile/compile_request.hpp"
#include "harness/workload/candidate.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::cheats
{

/// A cheat that comes back valid must be at least this slow relative to its honest twin.
inline constexpr double k_twin_ratio = 0.9;

struct cheat_entry
{
    std::string name;
    std::filesystem::path file;      ///< Absolute.
    std::filesystem::path workload;  ///< Absolute.
    std::string entry;
    candidate cand;                   ///< Source, entry, defines, options and launch plan.
    std::vector<std::string> expect;  ///< Acceptable outcomes: failure kinds, or {"valid"}.
    std::string why;
    std::string manifest;                              ///< File name of the manifest it came from.
    std::map<std::string, std::int64_t> twin_defines;  ///< Empty: no honest twin.
    std::optional<candidate> twin;  ///< cand with twin_defines added, when twin_defines is set.
    bool state = false;             ///< Keeps state between launches ("state": true).

    bool expects_valid() const { return expect.size() == 1 && expect[0] == "valid"; }
    bool has_twin() const { return twin.has_value(); }
    bool accepts(const std::string& outcome) const;
    /// "unwritten", "mismatch|nondeterministic".
    std::string expect_text() const;
};

/// Reads one manifest; paths resolve against root. Throws user_error naming the manifest and entry
/// on a malformed entry (the source file is read: a missing file is an error too).
std::vector<cheat_entry> load_cheat_manifest(const std::filesystem::path& manifest,
                                             const std::filesystem::path& root);

/// Both manifests of the repository at root: the cheat library, then the hardening kernels.
std::vector<cheat_entry> load_all_cheats(const std::filesystem::path& root);

/// The compile request for an entry on an architecture (options, then -D defines).
compile_request cheat_compile_request(const cheat_entry& e, const std::string& arch);

/// The compile request for an entry's honest twin (its defines include twin_defines). Throws
/// std::logic_error for an entry without a twin.
compile_request twin_compile_request(const cheat_entry& e, const std::string& arch);

/// The control ("valid-...") of the cheat library for a workload directory, or nullptr.
const cheat_entry* control_for(const std::vector<cheat_entry>& all, const std::filesystem::path& workload);

}  // namespace warpsmith::cheats
