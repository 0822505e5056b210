// Entry point of GPU test executables (ctest label "gpu"). Without a usable CUDA device the
// executable prints why and exits 77 before any test runs; ctest reports that as "Skipped"
// (SKIP_RETURN_CODE), so a GPU-less CI never counts these tests as passed. The check runs as a
// global fixture because the static Boost.Test library owns main().
#define BOOST_TEST_MODULE warpsmith_gpu
#include "tests/support/gpu_probe.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>

namespace
{

struct require_gpu
{
    require_gpu()
    {
        std::string why;
        if (!warpsmith::test::gpu_available(why))
        {
            std::printf("skipped: %s\n", why.c_str());
            std::fflush(stdout);
            std::_Exit(77);
        }
    }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(require_gpu);
