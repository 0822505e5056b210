// The fake OpenAI server's default answers (tests/agents/support/fake_openai_server.hpp): every
// kernel it serves by default names files that exist in bench/workloads/sgemm/candidates, reads as
// a proposal for the sgemm workload, and compiles with NVRTC (which needs no GPU), except the one
// kernel meant not to compile. A renamed candidate file once made every answer an HTTP 500.

#include "agents/llm/proposal_format.hpp"
#include "harness/compile/compile_request.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/workload/workload.hpp"
#include "tests/agents/support/fake_openai_server.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <set>

using namespace warpsmith;
using namespace warpsmith::test;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(fake_answers_suite)

BOOST_AUTO_TEST_CASE(every_default_answer_exists_and_compiles)
{
    const fs::path dir = default_sgemm_dir();
    const workload w = workload::load(dir);
    const nvrtc_compiler compiler;  // no cache: every kernel really compiles
    int compiled = 0, refused = 0, breaks = 0;
    std::set<std::string> stems;
    for (const auto& stem : default_script())
    {
        stems.insert(stem);
        if (stem == "schema-break")
        {
            ++breaks;
            continue;
        }
        BOOST_TEST_CONTEXT(stem)
        {
            BOOST_REQUIRE(fs::is_regular_file(dir / "candidates" / (stem + ".cu")));
            BOOST_REQUIRE(fs::is_regular_file(dir / "candidates" / (stem + ".json")));
            const auto check = llm::read_proposal(sgemm_proposal_json(dir, stem), w);
            BOOST_REQUIRE_MESSAGE(check.problems.empty(),
                                  (check.problems.empty() ? std::string() : check.problems.front()));
            BOOST_REQUIRE(check.prop.has_value());
            const auto out = compiler.compile(compile_request_for(check.prop->cand, "sm_90"));
            if (stem.find("compile-error") != std::string::npos)
            {
                BOOST_TEST(!out.compiled);
                ++refused;
            }
            else
            {
                BOOST_TEST(out.compiled, out.error << "\n" << out.log);
                compiled += out.compiled ? 1 : 0;
            }
        }
    }
    // The mix the server's header promises: several real kernels, one compile error, one schema break.
    BOOST_TEST(compiled >= 6);
    BOOST_TEST(refused == 1);
    BOOST_TEST(breaks == 1);
    BOOST_TEST(stems.size() == default_script().size());  // no stem twice
}

BOOST_AUTO_TEST_SUITE_END()
