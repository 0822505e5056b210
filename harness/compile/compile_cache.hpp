#pragma once

// On-disk cache of compile outputs keyed by SHA-256 of source + options + arch + NVRTC version
// (SPEC §3). Entries are written atomically (temporary file + rename), so concurrent compile
// workers sharing one directory never see a torn entry; a hit costs a file read.
// Default directory: $WARPSMITH_CACHE_DIR, else $XDG_CACHE_HOME/warpsmith/compile, else
// ~/.cache/warpsmith/compile.

#include "harness/compile/compile_request.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace warpsmith {

class compile_cache
{
public:
    explicit compile_cache(std::filesystem::path dir);
    static std::filesystem::path default_dir();

    std::optional<compile_output> lookup(const std::string& key) const;
    /// Stores successful and failed compiles alike (a failed compile is just as deterministic).
    void store(const compile_output& output) const;

    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

}  // namespace warpsmith
