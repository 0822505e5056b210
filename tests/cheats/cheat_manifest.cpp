#include "tests/cheats/cheat_manifest.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace warpsmith::test
{

namespace json = boost::json;
namespace fs = std::filesystem;

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
        if (expect && expect->is_string())
            e.expect.emplace_back(expect->get_string());
        else if (expect && expect->is_array())
            for (const json::value& k : expect->as_array())
            {
                if (!k.is_string())
                    throw user_error(where + " (" + e.name + "): 'expect' must hold strings");
                e.expect.emplace_back(k.get_string());
            }
        if (e.expect.empty())
            throw user_error(where + " (" + e.name + "): 'expect' must be a kind or an array of kinds");
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
    compile_request r;
    r.source = e.cand.source;
    r.entry = e.entry;
    r.options = e.cand.options;
    for (std::string& d : define_options(e.cand.defines))
        r.options.push_back(std::move(d));
    r.arch = arch;
    r.name = e.file.filename().string();
    return r;
}

const cheat_entry* control_for(const std::vector<cheat_entry>& all, const fs::path& workload)
{
    for (const cheat_entry& e : all)
        if (e.workload == workload && e.expects_valid() && e.name.rfind("valid-", 0) == 0)
            return &e;
    return nullptr;
}

}  // namespace warpsmith::test
