#include "harness/compile/compile_cache.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <cstdlib>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

// Bumped whenever the entry layout or the meaning of a field changes; older entries then read as
// misses and are overwritten.
constexpr std::int64_t cache_format = 1;

bool is_key(std::string_view key)
{
    if (key.size() != 64)
        return false;
    for (char c : key)
    {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

}  // namespace

compile_cache::compile_cache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path compile_cache::default_dir()
{
    if (const char* d = std::getenv("WARPSMITH_CACHE_DIR"); d && *d)
        return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "warpsmith" / "compile";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "warpsmith" / "compile";
    return std::filesystem::temp_directory_path() / "warpsmith-cache" / "compile";
}

std::filesystem::path compile_cache::metadata_path(const std::string& key) const
{
    return dir_ / key.substr(0, 2) / (key + ".json");
}

std::filesystem::path compile_cache::cubin_path(const std::string& key) const
{
    return dir_ / key.substr(0, 2) / (key + ".cubin");
}

std::optional<compile_output> compile_cache::lookup(const std::string& key) const
{
    if (!is_key(key))
        return std::nullopt;
    auto meta_path = metadata_path(key);
    std::error_code ec;
    if (!std::filesystem::exists(meta_path, ec))
        return std::nullopt;
    try
    {
        json::value meta = read_json_file(meta_path);
        // Entries of another version or format are misses (lenient: a cache, not a record).
        if (lenient::int_at(meta, "format") != cache_format || lenient::string_at(meta, "key") != key)
        {
            log_debug("compile cache: " + meta_path.string() + " is from another format; ignored");
            return std::nullopt;
        }
        const bool has_cubin = lenient::bool_at(meta, "compiled").value_or(false);
        std::string cubin;
        if (has_cubin)
        {
            cubin = read_text_file(cubin_path(key));
            if (lenient::int_at(meta, "cubin_bytes") != static_cast<std::int64_t>(cubin.size()) ||
                lenient::string_at(meta, "cubin_sha256") != sha256_hex(cubin))
            {
                log_debug("compile cache: " + key + ": cubin does not match its metadata; ignored");
                return std::nullopt;
            }
        }
        // The metadata carries everything but the cubin; from_json insists on a cubin for a
        // successful compile, so it reads the fields with "compiled" cleared and gets it back after.
        meta.get_object()["compiled"] = false;
        compile_output out = compile_output::from_json(meta);
        out.compiled = has_cubin;
        out.cubin = std::move(cubin);
        out.key = key;
        out.cache_hit = true;
        out.compile_ms = 0;
        return out;
    }
    catch (const std::exception& e)
    {
        // A torn, truncated or hand-edited entry is a miss; the next store replaces it atomically.
        log_debug(std::string("compile cache: entry ") + key + " unreadable (" + e.what() + "); ignored");
        return std::nullopt;
    }
}

void compile_cache::store(const compile_output& output) const
{
    if (!is_key(output.key))
        throw user_error("compile cache: cannot store an output without a SHA-256 key");
    // The metadata is compile_output's JSON without the cubin, which lives in its own file.
    const json::value full = output.to_json();
    json::object meta;
    for (const auto& kv : full.get_object())
    {
        if (kv.key() != "cubin_b64")
            meta.emplace(kv.key(), kv.value());
    }
    meta["cache_hit"] = false;
    meta["format"] = cache_format;
    meta["cubin_bytes"] = static_cast<std::int64_t>(output.cubin.size());
    meta["cubin_sha256"] = sha256_hex(output.cubin);

    try
    {
        // The cubin goes first: the metadata is what makes an entry visible, and it names the
        // cubin's digest, so a reader never accepts a cubin that belongs to a different write.
        if (output.compiled)
            write_file_atomic(cubin_path(output.key), output.cubin);
        write_json_file(metadata_path(output.key), meta);
    }
    catch (const std::filesystem::filesystem_error& e)
    {
        throw user_error("compile cache: cannot write under " + dir_.string() + " (" + e.code().message() +
                         ")");
    }
}

}  // namespace warpsmith
