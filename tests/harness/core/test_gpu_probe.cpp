#include "tests/support/gpu_probe.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_CASE(gpu_probe_finds_a_device)
{
    std::string why;
    BOOST_TEST(warpsmith::test::gpu_available(why), why);
}
