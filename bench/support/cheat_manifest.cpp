#include "bench/support/cheat_manifest.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace warpsmith::cheats
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

/// A -D value of twin_defines: an integer, or a string that is one ("1").
std::int64_t define_value(const json::value& v, const std::string& where)
{
    if (v.is_int64())
        return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v.get_uint64());
    if (v.is_string())
    {
        const std::string text(v.get_string());
        std::int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && !text.empty())
            return value;
    }
    throw user_error(where + ": must be an integer or a string holding one, not " + json::serialize(v));
}

compile_request compile_request_for(const cheat_entry& e, const candidate& cand, const std::string& arch)
{
    compile_request r;
    r.source = cand.source;
    r.entry = e.entry;
    r.options = cand.options;
    for (std::string& d : define_options(cand.defines))
        r.options.push_back(std::move(d));
    r.arch = arch;
    r.name = e.file.filename().string();
    return r;
}

}  // namespace

bool cheat_entry::accepts(const std::string& outcome) const
{
    return std::find(expect.begin(), expect.end(), outcome) != expect.end();
}

std::string cheat_entry::expect_text() const
{
    std::string out;
    for (const std::string& e : expect)
        out += (out.empty() ? "" : "|") + e;
    return out;
}

std::vector<cheat_entry> load_cheat_manifest(const fs::path& manifest, const fs::path& root)
{
    const json::value doc = read_json_file(manifest);
    const std::string origin = manifest.filename().string();
    if (!doc.is_array())
        throw user_error(origin + ": expected an array of cheat entries");
    std::vector<cheat_entry> out;
    for (std::size_t i = 0; i < doc.as_array().size(); ++i)
    {
        const json::value& v = doc.as_array()[i];
        const std::string where = origin + "[" + std::to_string(i) + "]";
        if (!v.is_object())
            throw user_error(where + ": expected an object");
        const json::object& o = v.as_object();
        const auto text = [&](const char* key)
        {
            const json::value* f = o.if_contains(key);
            if (!f || !f->is_string())
                throw user_error(where + ": '" + key + "' must be a string");
            return std::string(f->get_string());
        };
        cheat_entry e;
        e.manifest = origin;
        e.name = text("name");
        e.file = root / text("file");
        e.workload = root / text("workload");
        e.entry = text("entry");
        e.why = text("why");
        const json::value* expect = o.if_contains("expect");
        const json::value* expect_any = o.if_contains("expect_any");
        if (expect && expect_any)
            throw user_error(where + " (" + e.name + "): give 'expect' or 'expect_any', not both");
        if (expect_any && !expect_any->is_array())
            throw user_error(where + " (" + e.name + "): 'expect_any' must be an array of kinds");
        const char* expect_key = expect_any ? "expect_any" : "expect";
        if (expect_any)
            expect = expect_any;
        if (expect && expect->is_string())
            e.expect.emplace_back(expect->get_string());
        else if (expect && expect->is_array())
            for (const json::value& k : expect->as_array())
            {
                if (!k.is_string())
                    throw user_error(where + " (" + e.name + "): '" + expect_key + "' must hold strings");
                e.expect.emplace_back(k.get_string());
            }
        if (e.expect.empty())
            throw user_error(where + " (" + e.name + "): '" + expect_key +
                             "' must be a kind or an array of kinds");
        if (const json::value* state = o.if_contains("state"))
        {
            if (!state->is_bool())
                throw user_error(where + " (" + e.name + "): 'state' must be true or false");
            e.state = state->get_bool();
        }
        // The candidate JSON of docs/workload-format.md, built from the entry's fields.
        json::object cand{{"source", read_text_file(e.file)}, {"entry", e.entry}};
        const json::value* launch = o.if_contains("launch");
        if (!launch)
            throw user_error(where + " (" + e.name + "): 'launch' is missing");
        cand["launch"] = *launch;
        if (const json::value* d = o.if_contains("defines"))
            cand["defines"] = *d;
        if (const json::value* opts = o.if_contains("options"))
            cand["options"] = *opts;
        e.cand = candidate::from_json(cand, where + " (" + e.name + ")");
        if (const json::value* twin = o.if_contains("twin_defines"))
        {
            if (!twin->is_object() || twin->as_object().empty())
                throw user_error(where + " (" + e.name + "): 'twin_defines' must be a non-empty object");
            json::object defines;
            if (const json::value* d = o.if_contains("defines"))
                defines = d->as_object();
            for (const auto& kv : twin->as_object())
            {
                const std::string name(kv.key());
                e.twin_defines[name] =
                    define_value(kv.value(), where + " (" + e.name + "): twin_defines." + name);
                defines[name] = e.twin_defines[name];
            }
            json::object twin_cand = cand;
            twin_cand["defines"] = std::move(defines);
            e.twin = candidate::from_json(twin_cand, where + " (" + e.name + ", honest twin)");
        }
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<cheat_entry> load_all_cheats(const fs::path& root)
{
    std::vector<cheat_entry> all = load_cheat_manifest(root / "tests/cheats/cheats.json", root);
    std::vector<cheat_entry> hardening =
        load_cheat_manifest(root / "tests/cheats/hardening/hardening.json", root);
    all.insert(
        all.end(), std::make_move_iterator(hardening.begin()), std::make_move_iterator(hardening.end()));
    return all;
}

compile_request cheat_compile_request(const cheat_entry& e, const std::string& arch)
{
    return compile_request_for(e, e.cand, arch);
}

compile_request twin_compile_request(const cheat_entry& e, const std::string& arch)
{
    if (!e.twin)
        throw std::logic_error(e.name + " has no honest twin");
    return compile_request_for(e, *e.twin, arch);
}

const cheat_entry* control_for(const std::vector<cheat_entry>& all, const fs::path& workload)
{
    for (const cheat_entry& e : all)
        if (e.workload == workload && e.expects_valid() && e.name.rfind("valid-", 0) == 0)
            return &e;
    return nullptr;
}

}  // namespace warpsmith::cheats
