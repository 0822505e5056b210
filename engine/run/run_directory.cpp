#include "engine/run/run_directory.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/secret_redaction.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace warpsmith
{

namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

/// The number of a "<stem>NNN" directory name (stem = "run-"), or -1 for any other name.
int dir_number(const std::string& name, const std::string& stem)
{
    if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0)
        return -1;
    int n = 0;
    for (char ch : name.substr(stem.size()))
    {
        if (ch < '0' || ch > '9' || n > 10000000)
            return -1;
        n = n * 10 + (ch - '0');
    }
    return n;
}

// Candidate files are written with temporary file + rename but without fsync: they sit on the search
// loop's thread, a crash of the process cannot tear them (rename is atomic), and the journal, not
// these files, is what --resume reads. Run-level files (summary.json, best.*) use write_json_file.
void write_quick(const fs::path& p, std::string_view bytes)
{
    auto tmp = p;
    tmp += ".tmp";
    {
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f)
            throw user_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
        const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
        if (std::fclose(f) != 0 || !ok)
            throw user_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec)
        throw user_error("cannot write " + p.string() + ": " + ec.message());
}

void write_quick_json(const fs::path& p, const json::value& v)
{
    write_quick(p, pretty_json(v) + "\n");
}

void make_dir(const fs::path& p)
{
    std::error_code ec;
    fs::create_directories(p, ec);
    if (ec)
        throw user_error("cannot create directory " + p.string() + ": " + ec.message());
}

}  // namespace

std::string file_name_for_case(std::string_view case_name)
{
    std::string out;
    for (char ch : case_name)
    {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                        ch == '.' || ch == '_' || ch == '-';
        out += ok ? ch : '_';
    }
    if (out.empty() || out == "." || out == "..")
        out = "_" + out;
    return out;
}

json::object replay_request_json(const workload& w,
                                 const std::string& case_name,
                                 const candidate& cand,
                                 const std::string& name,
                                 const json::object& timing,
                                 std::uint64_t hidden_seed)
{
    const auto* c = w.find_case(case_name);
    return json::object{{"format", "warpsmith-replay-request"},
                        {"version", 1},
                        {"tool_version", WARPSMITH_VERSION},
                        {"name", name},
                        {"case", case_name},
                        {"validate_only", c && c->role == case_role::correctness},
                        {"hidden_seed", hidden_seed},
                        {"timing", timing},
                        {"candidate", cand.to_json()},
                        {"workload", w.to_json()}};
}

void ensure_dir(const fs::path& dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw user_error("cannot create directory " + dir.string() + (ec ? ": " + ec.message() : ""));
}

fs::path claim_numbered_dir(const fs::path& parent, std::string_view prefix)
{
    ensure_dir(parent);
    const std::string stem = std::string(prefix) + "-";
    int next = 1;
    std::error_code ec;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
        next = std::max(next, dir_number(it->path().filename().string(), stem) + 1);
    if (ec)
        throw user_error("cannot read directory " + parent.string() + ": " + ec.message());
    // mkdir either creates the directory or fails with EEXIST: a concurrent warpsmith that took the
    // same number makes us move on to the next one.
    for (int attempt = 0; attempt < 1000; ++attempt, ++next)
    {
        char number[16];
        std::snprintf(number, sizeof number, "%03d", next);
        auto p = parent / (stem + number);
        if (::mkdir(p.c_str(), 0755) == 0)
            return p;
        if (errno != EEXIST)
            throw user_error("cannot create directory " + p.string() + ": " + std::strerror(errno));
    }
    throw user_error("cannot find a free " + stem + "NNN directory in " + parent.string());
}

run_directory run_directory::create(const fs::path& results_dir)
{
    run_directory rd(claim_numbered_dir(results_dir, "run"));
    make_dir(rd.path_ / "candidates");
    make_dir(rd.path_ / "workload");
    make_dir(rd.path_ / "llm");
    return rd;
}

run_directory run_directory::open(const fs::path& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        throw user_error("--resume " + path.string() + ": no such run directory");
    if (!fs::exists(path / "journal.jsonl", ec) || !fs::exists(path / "run.json", ec))
        throw user_error("--resume " + path.string() +
                         ": not a warpsmith run (journal.jsonl and run.json are missing)");
    check_run_has_no_symlinks(path, "--resume");
    run_directory rd(fs::absolute(path));
    make_dir(rd.path_ / "candidates");
    make_dir(rd.path_ / "llm");
    return rd;
}

void check_run_has_no_symlinks(const fs::path& dir, std::string_view what)
{
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_symlink(ec))
            throw user_error(std::string(what) + " " + dir.string() + ": holds a symbolic link (" +
                             it->path().lexically_relative(dir).string() +
                             "); warpsmith writes none into a run directory, and one from elsewhere could "
                             "make it read any file of this machine, so it is not read");
    if (ec)
        throw user_error(std::string(what) + " " + dir.string() + ": cannot list the run directory (" +
                         ec.message() + ")");
}

void check_not_a_link(const fs::path& file, std::string_view flag)
{
    std::error_code ec;
    if (fs::is_symlink(file, ec))
        throw user_error(
            std::string(flag) + " " + file.string() +
            ": is a symbolic link; give the file it points at (a folder from elsewhere, such as a "
            "run directory, could point a link at any file of this machine)");
}

bool is_run_workload_file(const fs::path& file)
{
    std::error_code ec;
    const fs::path dir = fs::absolute(file, ec).lexically_normal().parent_path();
    if (ec || dir.filename() != "workload")
        return false;
    const fs::path run = dir.parent_path();
    return fs::is_regular_file(run / "run.json", ec) && fs::is_regular_file(run / "journal.jsonl", ec);
}

void run_directory::write_json(const std::string& file, const json::value& v) const
{
    write_json_file(path_ / file, v);
}

void run_directory::write_text(const std::string& file, std::string_view text) const
{
    write_file_atomic(path_ / file, text);
}

void run_directory::write_workload(const workload& w,
                                   const std::optional<std::string>& supplied_reference) const
{
    const auto dir = workload_dir();
    make_dir(dir);
    const auto wj = w.to_json();
    write_json_file(dir / "workload.json", wj);
    write_file_atomic(dir / "reference.cu", w.reference.source);
    if (w.initial)
        write_file_atomic(dir / "initial.cu", w.initial->source);
    if (supplied_reference)
        write_file_atomic(dir / "supplied-reference.cu", *supplied_reference);
    write_json_file(dir / "cases.json", json::object{{"cases", wj.as_object().at("cases")}});
}

json::object candidate_json(const candidate_record& r)
{
    json::object o{{"id", r.ec.id},
                   {"parent", r.ec.parent ? json::value(*r.ec.parent) : json::value(nullptr)},
                   {"branch", r.ec.branch},
                   {"iteration", r.ec.iteration},
                   {"repair_of", r.repair_of ? json::value(*r.repair_of) : json::value(nullptr)},
                   {"rationale", r.ec.rationale},
                   {"source_file", "kernel.cu"}};
    auto cj = r.ec.cand.to_json();
    for (auto& kv : cj.as_object())
        if (kv.key() != "source")
            o[kv.key()] = kv.value();
    o["meta"] = r.ec.meta;
    return o;
}

void run_directory::write_proposed(const candidate_record& r) const
{
    const auto dir = candidate_dir(r.id());
    make_dir(dir);
    write_quick(dir / "kernel.cu", r.ec.cand.source);
    write_quick_json(dir / "candidate.json", candidate_json(r));
}

void run_directory::write_compiled(const candidate_record& r) const
{
    const auto dir = candidate_dir(r.id());
    make_dir(dir);
    std::string log = r.ec.compile.log;
    if (!r.ec.compile.compiled && !r.ec.compile.error.empty())
        log = "error: " + r.ec.compile.error + "\n" + log;
    write_quick(dir / "compile.log", redact_secrets(log));
}

void run_directory::write_evaluated(const candidate_record& r,
                                    const workload& w,
                                    const json::object& timing,
                                    std::uint64_t hidden_seed) const
{
    const auto dir = candidate_dir(r.id());
    make_dir(dir / "requests");
    auto ev = evaluated_event(r);
    ev.erase("event");
    ev["compile"] = compile_summary_json(r.ec.compile);
    ev["compile"].as_object().erase("log");
    write_quick_json(dir / "result.json", ev);
    for (const auto& c : w.cases)
        write_quick_json(dir / "requests" / (file_name_for_case(c.name) + ".json"),
                         replay_request_json(w, c.name, r.ec.cand, r.id(), timing, hidden_seed));
}

}  // namespace warpsmith
