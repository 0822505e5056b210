#pragma once

// The file names a workload gives (docs/workload-format.md, "File names"): `reference`, `initial`,
// `tunable` (or `tunable.source`) and the `path` of every `file` input. A workload that came from
// someone else names files inside its own directory only; workload::load checks that for a whole
// workload, and anchor_file_names does it for parts of one read from separate files (optimize's
// --signature, a partial workload.json, and --input-cases), before they are put together.

#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// Why the file `name` does not stay inside `dir`, or nullopt when it does: a relative name, no
/// `..` that leaves dir, no symbolic link that leads out of it, no control character. The answer
/// is the rule's core ("'../x' leaves the directory"); callers add what the rule is for. The rule
/// of a workload's file names (file_scope::workload_dir) and of a suite's own inputs.
std::optional<std::string> why_not_inside(const std::string& name, const std::filesystem::path& dir);

/// Checks every file name in `parts` (a workload JSON object, whole or partial) against `scope`
/// at `dir`, the directory of the file `parts` was read from, and writes each as the absolute,
/// lexically normal file it names. Parts read from different files can then be merged and parsed
/// with workload::from_json under file_scope::resolved: each name was checked against its own
/// file's directory (self_contained: no kernel file name, input files only with their sha256).
/// Values that are no file name (not a string, empty, or a case without `"gen": "file"`) are left
/// for from_json to report. Throws user_error "<origin>: <field>: ..." as workload::load does, e.g.
/// "cases.json: cases[2].inputs.a.path: '/etc/hostname' is absolute: a workload names its files
/// by relative paths inside its own directory (docs/workload-format.md)".
void anchor_file_names(boost::json::object& parts,
                       const std::filesystem::path& dir,
                       file_scope scope,
                       std::string_view origin);

}  // namespace warpsmith
