#pragma once

// On-disk cache of compile outputs keyed by SHA-256 of source + options + arch + NVRTC version
// (SPEC §3; the exact key is nvrtc_compiler::cache_key). Entries are written atomically (temporary
// file + rename), so concurrent compile workers sharing one directory never see a torn entry; a hit
// costs a file read.
// Default directory: $WARPSMITH_CACHE_DIR, else $XDG_CACHE_HOME/warpsmith/compile, else
// ~/.cache/warpsmith/compile.
//
// Layout (docs/compile.md): <dir>/<key[0:2]>/<key>.cubin holds the cubin bytes (successful compiles
// only) and <dir>/<key[0:2]>/<key>.json the rest of compile_output plus "format", "cubin_bytes"
// and "cubin_sha256". An entry whose metadata does not parse, names another key or format, or does
// not match its cubin is a miss, never an error.

#include "harness/compile/compile_request.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace warpsmith
{

class compile_cache
{
public:
    explicit compile_cache(std::filesystem::path dir);
    static std::filesystem::path default_dir();

    /// The stored output with cache_hit = true and compile_ms = 0, or nullopt on a miss (absent,
    /// torn or foreign entry). Never throws.
    std::optional<compile_output> lookup(const std::string& key) const;
    /// Stores successful and failed compiles alike (a failed compile is just as deterministic),
    /// under output.key. Thread-safe and safe across processes. Throws user_error when output.key
    /// is not a SHA-256 hex digest or the directory cannot be written.
    void store(const compile_output& output) const;

    const std::filesystem::path& dir() const { return dir_; }
    std::filesystem::path metadata_path(const std::string& key) const;
    std::filesystem::path cubin_path(const std::string& key) const;

private:
    std::filesystem::path dir_;
};

}  // namespace warpsmith
