#include "tests/harness/workload/workload_test_util.hpp"

#include "tests/support/test_paths.hpp"

namespace warpsmith::test
{

std::filesystem::path workload_data_dir()
{
    return source_dir() / "tests" / "harness" / "workload" / "data";
}

std::string to_hex(std::string_view bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes)
    {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

}  // namespace warpsmith::test
