#include "agents/autotune/evaluation_cache.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/lenient.hpp"
#include "harness/protocol/format_error.hpp"
#include "harness/timing/timing_stats.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace warpsmith::autotune
{

namespace json = boost::json;

namespace
{

constexpr std::string_view cache_format = "warpsmith-eval-cache-1";

std::string now_utc()
{
    const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

/// A file-name-safe form of a workload name: its first 100 bytes, so that <name>-<16 hex>.jsonl
/// stays a file name (255 bytes at most) whatever the workload is called.
std::string safe_name(std::string_view name)
{
    std::string s;
    for (char c : name.substr(0, 100))
        s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    if (s.empty() || s[0] == '.')
        s.insert(s.begin(), '_');
    return s;
}

/// A cache file that is a symbolic link: a cache folder can come with a results folder from anyone,
/// and a link named like a cache file would have every evaluation appended to whatever it points at.
user_error linked_cache(const std::filesystem::path& file)
{
    return user_error(
        "the evaluation cache " + file.string() +
        " is a symbolic link; it is neither read nor written through (remove it, or give another "
        "--eval-cache)");
}

/// Appends one line under an exclusive lock, starting a new line if the file ends in a torn one.
void append_line(const std::filesystem::path& file, std::string line)
{
    // O_NOFOLLOW: see linked_cache.
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP)
        throw linked_cache(file);
    if (fd < 0)
        throw user_error("cannot open the evaluation cache " + file.string() + ": " + std::strerror(errno));
    struct closer
    {
        int fd;
        ~closer()
        {
            ::flock(fd, LOCK_UN);
            ::close(fd);
        }
    } guard{fd};
    if (::flock(fd, LOCK_EX) != 0)
        throw user_error("cannot lock the evaluation cache " + file.string() + ": " + std::strerror(errno));
    struct stat st
    {
    };
    if (::fstat(fd, &st) == 0 && st.st_size > 0)
    {
        // Reading needs its own descriptor: this one is write-only.
        const int rfd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        char last = '\n';
        if (rfd >= 0)
        {
            if (::pread(rfd, &last, 1, st.st_size - 1) != 1)
                last = '\n';
            ::close(rfd);
        }
        if (last != '\n')
            line.insert(line.begin(), '\n');
    }
    std::size_t done = 0;
    while (done < line.size())
    {
        const auto n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            throw user_error("cannot write the evaluation cache " + file.string() + ": " +
                             std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

json::object workload_identity(const workload& w)
{
    json::object o = w.to_json().as_object();
    // The vendor baselines and the roofline describe what a point is compared with, not what
    // it measures.
    for (const auto* key : {"description",
                            "tunables",
                            "restrictions",
                            "initial",
                            "initial_source",
                            "initial_entry",
                            "initial_launch",
                            "baselines",
                            "roofline"})
        o.erase(key);
    // An input file is its bytes (their sha256): moving the workload keeps its cache, new bytes
    // under the same name do not.
    if (auto* cases = o.if_contains("cases"); cases && cases->is_array())
        for (auto& c : cases->get_array())
            if (auto* inputs = c.as_object().if_contains("inputs"); inputs && inputs->is_object())
                for (auto& kv : inputs->get_object())
                    if (auto* spec = kv.value().if_object(); spec && spec->contains("sha256"))
                        spec->erase("path");
    return o;
}

json::object cache_entry::to_json() const
{
    json::object medians;
    for (const auto& [k, v] : case_median_us)
        medians[k] = v;
    return json::object{
        {"format", cache_format},
        {"key", key},
        {"point", point},
        {"valid", valid},
        {"score_us", score_us ? json::value(*score_us) : json::value(nullptr)},
        {"case_median_us", std::move(medians)},
        {"failure_kind", failure_kind.empty() ? json::value(nullptr) : json::value(failure_kind)},
        {"result", result.to_json()},
        {"candidate", candidate},
        {"run", run},
        {"time", time},
        {"device", device}};
}

std::optional<cache_entry> cache_entry::from_json(const json::value& v)
{
    const auto* o = v.if_object();
    if (!o || lenient::string_or(*o, "format") != cache_format)
        return std::nullopt;
    cache_entry e;
    e.key = lenient::string_or(*o, "key");
    if (e.key.size() != 64)
        return std::nullopt;
    if (const json::object* p = lenient::object_at(o, "point"))
        e.point = *p;
    const auto valid = lenient::bool_at(o, "valid");
    if (!valid)
        return std::nullopt;
    e.valid = *valid;
    e.score_us = lenient::number_at(o, "score_us");
    e.case_median_us = lenient::numbers_at(o, "case_median_us");
    e.failure_kind = lenient::string_or(*o, "failure_kind");
    if (const json::value* r = lenient::value_at(o, "result"))
    {
        try
        {
            e.result = protocol::evaluation_result::from_json(*r);
        }
        catch (const protocol::format_error&)
        {
            return std::nullopt;  // a damaged line: skipped like one that does not parse
        }
    }
    e.candidate = lenient::string_or(*o, "candidate");
    e.run = lenient::string_or(*o, "run");
    e.time = lenient::string_or(*o, "time");
    if (const json::object* d = lenient::object_at(o, "device"))
        e.device = *d;
    if (e.valid && !e.score_us)
        return std::nullopt;
    return e;
}

bool cacheable_result(const protocol::evaluation_result& result)
{
    if (result.valid())
        return true;
    const std::string kind = result.failure_kind();
    return !kind.empty() && kind != "worker_crash" && kind != "timing_inconsistent";
}

cache_entry make_cache_entry(const std::string& key,
                             const candidate& c,
                             const protocol::evaluation_result& result,
                             const std::string& candidate_id,
                             const std::string& run)
{
    cache_entry e;
    e.key = key;
    for (const auto& [k, v] : c.defines)
        e.point[k] = v;
    e.valid = result.valid();
    e.case_median_us = result.performance_medians();
    if (e.valid)
    {
        // The worker's score (the geometric mean of the medians), else the same computed here.
        e.score_us = result.score_us;
        if ((!e.score_us || !(*e.score_us > 0)) && !e.case_median_us.empty())
        {
            std::vector<double> medians;
            for (const auto& [name, m] : e.case_median_us)
                medians.push_back(m);
            e.score_us = geometric_mean(medians);  // the medians are positive and finite
        }
        if (!e.score_us || !(*e.score_us > 0))
        {
            e.score_us.reset();
            e.valid = false;
        }
    }
    if (!e.valid)
    {
        e.failure_kind = result.failure_kind();
        if (e.failure_kind.empty())
            e.failure_kind = "invalid";
    }
    e.result = result;
    e.candidate = candidate_id;
    e.run = run;
    e.time = now_utc();
    return e;
}

evaluation_cache::evaluation_cache(const workload& w,
                                   const json::object& device,
                                   const json::object& timing,
                                   const std::filesystem::path& dir)
{
    identity_digest_ = sha256_hex(json::serialize(workload_identity(w)));
    device_ = lenient::string_or(device, "name", device_);
    arch_ = lenient::string_or(device, "arch", arch_);
    timing_ = json::serialize(timing);
    for (const auto* k : {"name",
                          "arch",
                          "max_threads_per_block",
                          "max_block",
                          "max_grid",
                          "shared_memory_per_block_bytes",
                          "shared_memory_per_block_optin_bytes",
                          "registers_per_block",
                          "warp_size"})
        if (const json::value* v = lenient::value_at(device, k))
            device_json_[k] = *v;
    const auto file_digest = sha256_builder().add(identity_digest_).add(device_).add(arch_).hex();
    file_ = dir / (safe_name(w.name) + "-" + file_digest.substr(0, 16) + ".jsonl");
    std::error_code link_ec;
    if (std::filesystem::is_symlink(file_, link_ec))
        throw linked_cache(file_);
    refresh();
}

std::filesystem::path evaluation_cache::default_dir(const std::filesystem::path& results_dir)
{
    return results_dir / "eval-cache";
}

std::vector<std::filesystem::path> evaluation_cache::files_for(const workload& w,
                                                               const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> out;
    const auto prefix = safe_name(w.name) + "-";
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    {
        const auto name = e.path().filename().string();
        // <name>-<16 hex>.jsonl exactly, so "sgemm" does not pick up "sgemm-rect"'s files.
        if (name.size() == prefix.size() + 16 + 6 && name.rfind(prefix, 0) == 0 &&
            name.compare(name.size() - 6, 6, ".jsonl") == 0 &&
            name.find_first_not_of("0123456789abcdef", prefix.size()) == prefix.size() + 16)
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::filesystem::path evaluation_cache::context_file_of(const std::filesystem::path& cache_file)
{
    std::filesystem::path p = cache_file;
    p.replace_extension(".context.json");
    return p;
}

void evaluation_cache::write_context(const json::object& context) const
{
    write_json_file(context_file_of(file_), context);
}

std::optional<json::object> evaluation_cache::read_context(const std::filesystem::path& cache_file)
{
    const auto p = context_file_of(cache_file);
    std::error_code ec;
    if (!std::filesystem::exists(p, ec))
        return std::nullopt;
    try
    {
        json::value v = read_json_file(p);
        if (v.is_object())
            return std::move(v.get_object());
    }
    catch (const std::exception&)
    {
    }
    return std::nullopt;
}

std::optional<json::object> evaluation_cache::device_of(const std::filesystem::path& file)
{
    std::error_code link_ec;
    if (std::filesystem::is_symlink(file, link_ec))
        return std::nullopt;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
    {
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        if (ec)
            continue;
        if (auto e = cache_entry::from_json(v); e && !e->device.empty())
            return e->device;
    }
    return std::nullopt;
}

std::string evaluation_cache::key(const candidate& c) const
{
    sha256_builder b;
    b.add(cache_format).add(identity_digest_).add(device_).add(arch_).add(timing_);
    b.add(c.source).add(c.entry);
    b.add(std::to_string(c.options.size()));
    for (const auto& o : c.options)
        b.add(o);
    b.add(std::to_string(c.defines.size()));
    for (const auto& [k, v] : c.defines)
        b.add(k).add(std::to_string(v));
    b.add(json::serialize(c.launch.to_json()));
    b.add(std::to_string(c.overrides.size()));
    for (const auto& [k, v] : c.overrides)
        b.add(k).add(json::serialize(v.to_json()));
    return b.hex();
}

void evaluation_cache::refresh()
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(file_, ec);
    if (ec || size <= read_offset_)
        return;
    const int fd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    std::string text(static_cast<std::size_t>(size - read_offset_), '\0');
    std::size_t got = 0;
    while (got < text.size())
    {
        const auto n =
            ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(read_offset_ + got));
        if (n <= 0)
        {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    text.resize(got);
    // Only complete lines count; a line still being written (or torn by a crash) is read later.
    std::size_t pos = 0;
    for (;;)
    {
        const auto nl = text.find('\n', pos);
        if (nl == std::string::npos)
            break;
        const std::string_view line(text.data() + pos, nl - pos);
        pos = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        boost::system::error_code pec;
        auto v = json::parse(line, pec);
        auto e = pec ? std::nullopt : cache_entry::from_json(v);
        if (!e)
        {
            ++skipped_;
            continue;
        }
        if (!entries_.count(e->key))
            order_.push_back(e->key);
        entries_[e->key] = std::move(*e);
    }
    read_offset_ += pos;
}

std::optional<cache_entry> evaluation_cache::lookup(const std::string& key)
{
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end())
    {
        refresh();
        it = entries_.find(key);
        if (it == entries_.end())
            return std::nullopt;
    }
    return it->second;
}

void evaluation_cache::store(const cache_entry& e)
{
    std::lock_guard lock(mutex_);
    std::error_code ec;
    std::filesystem::create_directories(file_.parent_path(), ec);
    if (ec)
        throw user_error("cannot create the evaluation cache directory " + file_.parent_path().string() +
                         ": " + ec.message());
    // Catch up first, so the offset stays at a line boundary of what this process wrote.
    refresh();
    cache_entry stamped = e;
    if (stamped.device.empty())
        stamped.device = device_json_;
    append_line(file_, to_json_text(stamped.to_json()) + "\n");
    if (!entries_.count(e.key))
        order_.push_back(e.key);
    entries_[e.key] = std::move(stamped);
    // The next refresh() reads this line back too, which maps the key to the same entry.
}

std::size_t evaluation_cache::size() const
{
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::vector<cache_entry> evaluation_cache::entries()
{
    std::lock_guard lock(mutex_);
    refresh();
    std::vector<cache_entry> out;
    for (const auto& k : order_)
        out.push_back(entries_.at(k));
    return out;
}

}  // namespace warpsmith::autotune
