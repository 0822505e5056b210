#pragma once

// Helpers shared by the workload tests: the data folder, and checks on error messages.

#include <filesystem>
#include <string>
#include <string_view>

namespace warpsmith::test
{

/// tests/harness/workload/data in the source tree.
std::filesystem::path workload_data_dir();

/// Runs f, which must throw E; returns what(). Any other exception escapes and fails the test,
/// so the error tier is checked along with the message.
template <class E, class F>
std::string error_of(F&& f)
{
    try
    {
        f();
    }
    catch (const E& ex)
    {
        return ex.what();
    }
    return "<no exception thrown>";
}

/// Hex of bytes, lower case, two digits per byte.
std::string to_hex(std::string_view bytes);

}  // namespace warpsmith::test
