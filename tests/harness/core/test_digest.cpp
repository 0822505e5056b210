#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace warpsmith;

BOOST_AUTO_TEST_SUITE(digest)

BOOST_AUTO_TEST_CASE(sha256_known_vectors)
{
    BOOST_TEST(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    BOOST_TEST(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

BOOST_AUTO_TEST_CASE(a_file_digest_is_the_digest_of_its_bytes_read_in_pieces)
{
    // Larger than the 1 MiB piece and not a multiple of it.
    std::string bytes(3 * (1 << 20) + 5, '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
    const auto path =
        std::filesystem::temp_directory_path() / ("warpsmith-digest-" + std::to_string(::getpid()) + ".bin");
    std::ofstream(path, std::ios::binary) << bytes;
    BOOST_TEST(sha256_file_hex(path) == sha256_hex(bytes));
    std::ofstream(path, std::ios::binary | std::ios::trunc).flush();
    BOOST_TEST(sha256_file_hex(path) == sha256_hex(""));
    std::filesystem::remove(path);
    BOOST_CHECK_THROW(sha256_file_hex(path), user_error);
}

BOOST_AUTO_TEST_CASE(builder_separates_parts)
{
    std::string a = sha256_builder().add("ab").add("c").hex();
    std::string b = sha256_builder().add("a").add("bc").hex();
    BOOST_TEST(a != b);
    BOOST_TEST(a == sha256_builder().add("ab").add("c").hex());
}

BOOST_AUTO_TEST_CASE(base64_round_trip_all_lengths)
{
    std::string bytes;
    for (int n = 0; n < 40; ++n)
    {
        BOOST_TEST(base64_decode(base64_encode(bytes)) == bytes);
        bytes += static_cast<char>(n * 37 + 1);
    }
    BOOST_TEST(base64_encode("foobar") == "Zm9vYmFy");
    BOOST_TEST(base64_decode("Zm9vYg==") == "foob");
    BOOST_CHECK_THROW(base64_decode("abc"), user_error);
}

BOOST_AUTO_TEST_SUITE_END()
