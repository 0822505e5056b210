#pragma once

// What `warpsmith --version` says: the version, the source commit it was built from, and where
// this binary finds its worker and its bundled data (so that an installed copy can be told from a
// build tree's at a glance).

#include <string>
#include <string_view>

namespace warpsmith
{

/// `git describe --always --dirty` of the source tree when the build ran ("1174c23a1b2c-dirty");
/// "unknown" for a tree that is not a git checkout (a source tarball) or a machine without git.
std::string_view git_commit();

/// Three lines: "warpsmith 0.1.0 (commit C)", "worker: PATH" (the warpsmith-worker a GPU command
/// would start, or a note that there is none) and "data: DIR" (data_directory(), or a note).
std::string version_text();

}  // namespace warpsmith
