// Entry point of CPU test executables: plain Boost.Test.
#define BOOST_TEST_MODULE warpsmith
#include <boost/test/unit_test.hpp>
