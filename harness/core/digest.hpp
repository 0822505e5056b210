#pragma once

// SHA-256 and base64 through OpenSSL's EVP layer (no hand-rolled crypto), and hex digits.

#include <filesystem>
#include <string>
#include <string_view>

namespace warpsmith
{

/// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

/// Lower-case hex SHA-256 of a file's bytes, read in pieces (a large input file is not held in
/// memory twice). Throws user_error "<path>: cannot read file (...)".
std::string sha256_file_hex(const std::filesystem::path& path);

/// Incremental SHA-256 for keys built from several parts.
class sha256_builder
{
public:
    sha256_builder();
    ~sha256_builder();
    sha256_builder(const sha256_builder&) = delete;
    sha256_builder& operator=(const sha256_builder&) = delete;

    /// Adds a length-prefixed part so that ("ab","c") and ("a","bc") hash differently.
    sha256_builder& add(std::string_view part);
    std::string hex();

private:
    void* ctx_;
};

/// The value of one hexadecimal digit (either case); -1 when c is not one.
constexpr int hex_digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::string base64_encode(std::string_view bytes);
/// Throws user_error on malformed input.
std::string base64_decode(std::string_view text);

}  // namespace warpsmith
