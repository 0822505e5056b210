#include "harness/compile/compile_options.hpp"

#include <boost/test/unit_test.hpp>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(compile_options)

BOOST_AUTO_TEST_CASE(allowed_options_pass)
{
    std::vector<std::string> ok{"--use_fast_math",
                                "--extra-device-vectorization",
                                "--maxrregcount=1",
                                "--maxrregcount=64",
                                "--maxrregcount=255",
                                "-DBM=128",
                                "-DOFFSET=-4",
                                "-DMODE=fast_path",
                                "-D_PRIVATE",
                                "-DUSE_TMA"};
    BOOST_TEST(!check_compile_options(ok).has_value());
    BOOST_TEST(!check_compile_options({}).has_value());
}

BOOST_AUTO_TEST_CASE(everything_else_is_refused_with_one_line)
{
    const std::vector<std::pair<std::string, std::string>> refused{
        {"-rdc=true", "allowed are"},
        {"-I/etc", "allowed are"},
        {"--include-path=/etc", "allowed are"},
        {"--gpu-architecture=sm_80", "allowed are"},
        {"-arch=sm_80", "allowed are"},
        {"-use_fast_math", "allowed are"},
        {"--define-macro=X=1", "allowed are"},
        {"--maxrregcount=0", "1 to 255"},
        {"--maxrregcount=256", "1 to 255"},
        {"--maxrregcount=", "1 to 255"},
        {"--maxrregcount=32x", "1 to 255"},
        {"-D", "identifier"},
        {"-D1X=3", "identifier"},
        {"-D X=3", "identifier"},
        {"-DX-Y=3", "identifier"},
        {"-DX=1+2", "integer or an identifier"},
        {"-DX=", "integer or an identifier"},
        {"-DX=\"s\"", "integer or an identifier"},
        {"-DX=1.5", "integer or an identifier"},
        // The source's refused operators may not come in through a define (-DX=__has_include with
        // `#if X(".env")` would probe the host's files).
        {"-DX=__has_include", "may not be __has_include"},
        {"-DX=__has_include_next", "may not be __has_include_next"},
        {"-DX=__has_embed", "may not be __has_embed"},
        {"-DX=_Pragma", "may not be _Pragma"},
        {"-DX=__pragma", "may not be __pragma"},
        {"", "allowed are"},
    };
    for (const auto& [option, reason] : refused)
    {
        auto why = check_compile_options({"--use_fast_math", option, "-rdc=true"});
        BOOST_TEST_REQUIRE(why.has_value(), option);
        BOOST_TEST(why->find("'" + option + "'") != std::string::npos, *why);
        BOOST_TEST(why->find(reason) != std::string::npos, *why);
        BOOST_TEST(why->find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(architectures)
{
    for (std::string arch : {"sm_90", "sm_90a", "sm_80", "sm_100", "sm_100a", "sm_120"})
        BOOST_TEST(!check_arch(arch).has_value(), arch);
    for (std::string arch : {"compute_90",
                             "sm90",
                             "sm_9",
                             "sm_90f",
                             "sm_90aa",
                             "SM_90",
                             "sm_1000",
                             "",
                             "sm_09",
                             "sm_90 -rdc=true"})
    {
        auto why = check_arch(arch);
        BOOST_TEST_REQUIRE(why.has_value(), arch);
        BOOST_TEST(why->find("sm_XX or sm_XXa") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(defines_become_options_in_name_order)
{
    auto options = define_options({{"TM", 8}, {"BM", 128}, {"NEG", -3}});
    BOOST_TEST(options == (std::vector<std::string>{"-DBM=128", "-DNEG=-3", "-DTM=8"}),
               boost::test_tools::per_element());
    BOOST_TEST(!check_compile_options(options).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
