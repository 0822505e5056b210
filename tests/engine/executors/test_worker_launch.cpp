// How worker command lines are built: the local binary, and --worker-cmd templates.

#include "engine/executors/worker_launch.hpp"

#include <boost/test/unit_test.hpp>

using warpsmith::worker_launch;
using argv_t = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(worker_launch_suite)

BOOST_AUTO_TEST_CASE(local_binary)
{
    worker_launch l;
    l.worker_binary = "/opt/ws/warpsmith-worker";
    l.extra_args = {"--log-level", "debug"};
    BOOST_TEST(l.gpu_argv(3) ==
               (argv_t{"/opt/ws/warpsmith-worker", "--device", "3", "--log-level", "debug"}));
    BOOST_TEST(l.compile_argv() == (argv_t{"/opt/ws/warpsmith-worker", "--compile", "--log-level", "debug"}));
}

BOOST_AUTO_TEST_CASE(template_with_device_placeholder)
{
    worker_launch l;
    l.worker_binary = "/opt/ws/warpsmith-worker";
    l.command = "ssh gpu{device} warpsmith-worker --device {device}";
    l.extra_args = {"--cache-dir", "/tmp/my cache"};
    BOOST_TEST(l.gpu_argv(7) ==
               (argv_t{"/bin/sh", "-c", "ssh gpu7 warpsmith-worker --device 7 --cache-dir '/tmp/my cache'"}));
    // A template naming a device describes how to reach a GPU; compiles stay local.
    BOOST_TEST(l.compile_argv() ==
               (argv_t{"/opt/ws/warpsmith-worker", "--compile", "--cache-dir", "/tmp/my cache"}));
}

BOOST_AUTO_TEST_CASE(template_without_placeholder_gets_the_mode_appended)
{
    worker_launch l;
    l.command = "srun --gres=gpu:1 warpsmith-worker";
    BOOST_TEST(l.gpu_argv(0) == (argv_t{"/bin/sh", "-c", "srun --gres=gpu:1 warpsmith-worker --device 0"}));
    BOOST_TEST(l.compile_argv() == (argv_t{"/bin/sh", "-c", "srun --gres=gpu:1 warpsmith-worker --compile"}));
    l.extra_args = {"it's"};
    BOOST_TEST(l.compile_argv()[2] == "srun --gres=gpu:1 warpsmith-worker --compile 'it'\\''s'");
}

BOOST_AUTO_TEST_CASE(default_binary_is_never_empty)
{
    BOOST_TEST(!worker_launch::default_worker_binary().empty());
    worker_launch l;
    BOOST_TEST(l.gpu_argv(0).size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
