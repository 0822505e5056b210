#pragma once

// SHA-256 and base64 through OpenSSL's EVP layer (no hand-rolled crypto).

#include <string>
#include <string_view>

namespace warpsmith
{

/// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

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

std::string base64_encode(std::string_view bytes);
/// Throws user_error on malformed input.
std::string base64_decode(std::string_view text);

}  // namespace warpsmith
