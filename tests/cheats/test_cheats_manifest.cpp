// The cheat manifests without a GPU: every entry's file exists and compiles with NVRTC for sm_90 (an
// entry that expects compile_error must not), every workload loads and every launch plan evaluates
// on every case, names are unique, every expected kind is one docs/worker-protocol.md documents, and
// every workload has a valid control (the GPU test runs it after each cheat).

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/cheats/cheat_manifest.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <sstream>

using namespace warpsmith;
using namespace warpsmith::test;

namespace
{

/// The failure kinds of the table in docs/worker-protocol.md ("| `kind` | meaning |" rows after the
/// "Failure kinds" paragraph), plus "valid".
std::set<std::string> documented_kinds()
{
    const std::string doc = read_text_file(source_dir() / "docs/worker-protocol.md");
    std::set<std::string> kinds{"valid"};
    const std::size_t start = doc.find("Failure kinds");
    BOOST_REQUIRE_MESSAGE(start != std::string::npos,
                          "docs/worker-protocol.md has no 'Failure kinds' paragraph");
    std::istringstream in(doc.substr(start));
    std::string line;
    bool in_table = false;
    while (std::getline(in, line))
    {
        if (line.rfind("| `", 0) == 0)
        {
            in_table = true;
            const std::size_t end = line.find('`', 3);
            kinds.insert(line.substr(3, end - 3));
        }
        else if (in_table && line.rfind("|", 0) != 0)
            break;
    }
    return kinds;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cheat_manifest)

BOOST_AUTO_TEST_CASE(every_kind_expected_is_documented_and_names_are_unique)
{
    const std::set<std::string> kinds = documented_kinds();
    BOOST_TEST(kinds.count("timed_output_mismatch") == 1u);
    BOOST_TEST(kinds.count("hang") == 1u);
    const std::vector<cheat_entry> all = load_all_cheats(source_dir());
    BOOST_TEST(all.size() >= 28u);
    std::set<std::string> names;
    for (const cheat_entry& e : all)
    {
        BOOST_TEST(names.insert(e.name).second, e.name << " appears twice");
        for (const std::string& k : e.expect)
            BOOST_TEST(kinds.count(k) == 1u,
                       e.name << ": expects '" << k << "', which docs/worker-protocol.md "
                              << "does not document");
        BOOST_TEST(!e.why.empty(), e.name << ": 'why' is empty");
    }
}

BOOST_AUTO_TEST_CASE(every_workload_loads_every_plan_evaluates_and_has_a_control)
{
    const std::vector<cheat_entry> all = load_all_cheats(source_dir());
    std::map<std::string, workload> loaded;
    for (const cheat_entry& e : all)
    {
        auto it = loaded.find(e.workload.string());
        if (it == loaded.end())
            it = loaded.emplace(e.workload.string(), workload::load(e.workload)).first;
        const workload& w = it->second;
        BOOST_TEST(w.sig.entry == e.entry,
                   e.name << ": entry " << e.entry << " is not the workload's " << w.sig.entry);
        BOOST_TEST(e.cand.validate(w).empty(), e.name << ": " << e.cand.validate(w));
        BOOST_TEST(control_for(all, e.workload) != nullptr,
                   e.name << ": no valid- control for " << e.workload);
    }
    BOOST_TEST(loaded.size() == 2u);
}

BOOST_AUTO_TEST_CASE(every_kernel_compiles_for_sm_90)
{
    const nvrtc_compiler compiler;  // No cache: every kernel really goes through NVRTC.
    for (const cheat_entry& e : load_all_cheats(source_dir()))
    {
        const compile_output out = compiler.compile(cheat_compile_request(e, "sm_90"));
        if (e.accepts("compile_error"))
            BOOST_TEST(!out.compiled, e.name << " was meant not to compile");
        else
            BOOST_TEST(out.compiled, e.name << ": " << out.error << "\n" << out.log);
    }
}

BOOST_AUTO_TEST_CASE(a_malformed_manifest_is_one_clear_error)
{
    temp_dir tmp;
    write_file_atomic(tmp.path() / "bad.json", R"([{"name": "x", "file": "missing.cu", "workload": "w",
        "entry": "k", "launch": {"grid": [1,1,1], "block": [1,1,1]}, "expect": "valid", "why": "y"}])");
    BOOST_CHECK_EXCEPTION(load_cheat_manifest(tmp.path() / "bad.json", tmp.path()),
                          user_error,
                          [](const user_error& e)
                          { return std::string(e.what()).find("missing.cu") != std::string::npos; });
    write_file_atomic(tmp.path() / "bad2.json", R"([{"name": "x", "expect": 3}])");
    BOOST_CHECK_THROW(load_cheat_manifest(tmp.path() / "bad2.json", tmp.path()), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
