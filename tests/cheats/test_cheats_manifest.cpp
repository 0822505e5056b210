// The cheat manifests without a GPU: every entry's file exists and compiles with NVRTC for sm_90 (an
// entry that expects compile_error must either not compile or be one the worker refuses at load:
// a module that calls the device heap), every honest twin compiles too and differs from its cheat,
// every workload loads and every launch plan evaluates on every case, names are unique, every
// expected kind is one docs/worker-protocol.md documents, and every workload has a valid control
// (the GPU test runs it after each cheat). The state-keeping attacks of issue 13 (cheats 17-25) are
// all there with their twins.

#include "bench/support/cheat_manifest.hpp"
#include "harness/compile/cubin_symbols.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/workload/workload.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace warpsmith;
using namespace warpsmith::cheats;
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
        if (e.accepts("compile_error") && !e.accepts("valid"))
        {
            // Either NVRTC rejects it, or it compiles into a module the worker refuses to load.
            const std::string refusal =
                out.compiled ? device_heap_refusal(read_cubin_inventory(out.cubin)) : std::string();
            BOOST_TEST((!out.compiled || !refusal.empty()),
                       e.name << " was meant not to compile or to be refused at load");
            if (out.compiled)
                BOOST_TEST(refusal.find("malloc") != std::string::npos, e.name << ": " << refusal);
        }
        else
            BOOST_TEST(out.compiled, e.name << ": " << out.error << "\n" << out.log);
        if (!e.has_twin())
            continue;
        const compile_output twin = compiler.compile(twin_compile_request(e, "sm_90"));
        BOOST_TEST(twin.compiled, e.name << " (honest twin): " << twin.error << "\n" << twin.log);
        if (twin.compiled)
        {
            BOOST_TEST(device_heap_refusal(read_cubin_inventory(twin.cubin)).empty(),
                       e.name << ": the honest twin must be loadable");
            if (out.compiled)
                BOOST_TEST(twin.cubin != out.cubin, e.name << ": the twin defines change nothing");
        }
    }
}

BOOST_AUTO_TEST_CASE(the_state_attacks_are_listed_with_their_twins)
{
    const std::vector<cheat_entry> all = load_all_cheats(source_dir());
    const auto named = [&](const std::string& name) -> const cheat_entry*
    {
        for (const cheat_entry& e : all)
            if (e.name == name)
                return &e;
        return nullptr;
    };
    const std::map<std::string, bool> attacks{{"sgemm-content-memo", true},
                                              {"sgemm-launch-count", true},
                                              {"sgemm-interleave-detect", true},
                                              {"sgemm-heap-memo", false},
                                              {"sgemm-smem-residue", true},
                                              {"sgemm-slack-memo", false},
                                              {"sgemm-globaltimer-skip", false},
                                              {"sgemm-local-residue", true},
                                              {"sgemm-snapshot-scan", false},
                                              {"sgemm-local-window", true}};
    for (const auto& [name, state] : attacks)
    {
        const cheat_entry* e = named(name);
        BOOST_TEST_REQUIRE(e != nullptr, name << " is not in the manifests");
        BOOST_TEST(e->has_twin(), name << " has no twin_defines");
        BOOST_TEST(e->twin_defines.count("WS_HONEST_TWIN") == 1u, name);
        BOOST_TEST(e->state == state, name << ": 'state' should be " << state);
        if (e->has_twin())
            BOOST_TEST(e->twin->defines.at("WS_HONEST_TWIN") == 1, name);
    }
    BOOST_TEST(named("sgemm-heap-memo")->expect_text() == "compile_error");
    BOOST_TEST(named("sgemm-slack-memo")->expect_text() == "out_of_bounds_write");
    BOOST_TEST(!named("sgemm-globaltimer-skip")->accepts("valid"));
    for (const char* name : {"sgemm-content-memo", "sgemm-launch-count", "sgemm-interleave-detect"})
        BOOST_TEST(named(name)->expects_valid(), name);
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

BOOST_AUTO_TEST_CASE(expect_any_twin_defines_and_state_are_read)
{
    temp_dir tmp;
    write_file_atomic(tmp.path() / "k.cu", "extern \"C\" __global__ void k() {}\n");
    const auto manifest = [&](const std::string& fields)
    {
        write_file_atomic(tmp.path() / "m.json",
                          R"([{"name": "x", "file": "k.cu", "workload": "w", "entry": "k",
                               "launch": {"grid": [1,1,1], "block": [1,1,1]}, "why": "y", )" +
                              fields + "}]");
        return tmp.path() / "m.json";
    };
    const std::vector<cheat_entry> ok =
        load_cheat_manifest(manifest(R"("expect_any": ["valid", "mismatch"], "defines": {"A": 2},
                    "twin_defines": {"WS_HONEST_TWIN": "1", "B": 3}, "state": true)"),
                            tmp.path());
    BOOST_TEST_REQUIRE(ok.size() == 1u);
    BOOST_TEST(ok[0].expect_text() == "valid|mismatch");
    BOOST_TEST(ok[0].accepts("mismatch"));
    BOOST_TEST(!ok[0].expects_valid());
    BOOST_TEST(ok[0].state);
    BOOST_TEST_REQUIRE(ok[0].has_twin());
    BOOST_TEST(ok[0].twin->defines.size() == 3u);
    BOOST_TEST(ok[0].twin->defines.at("A") == 2);
    BOOST_TEST(ok[0].twin->defines.at("WS_HONEST_TWIN") == 1);
    BOOST_TEST(ok[0].cand.defines.count("WS_HONEST_TWIN") == 0u);
    const compile_request twin = twin_compile_request(ok[0], "sm_90");
    BOOST_TEST(
        (std::find(twin.options.begin(), twin.options.end(), "-DWS_HONEST_TWIN=1") != twin.options.end()));

    const std::vector<cheat_entry> plain = load_cheat_manifest(manifest(R"("expect": "valid")"), tmp.path());
    BOOST_TEST(!plain[0].has_twin());
    BOOST_TEST(!plain[0].state);
    BOOST_CHECK_THROW(twin_compile_request(plain[0], "sm_90"), std::logic_error);

    for (const char* bad : {R"("expect": "valid", "expect_any": ["valid"])",
                            R"("expect_any": "valid")",
                            R"("expect_any": [])",
                            R"("expect": "valid", "twin_defines": {"T": "one"})",
                            R"("expect": "valid", "twin_defines": {})",
                            R"("expect": "valid", "state": 1)"})
        BOOST_CHECK_THROW(load_cheat_manifest(manifest(bad), tmp.path()), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
