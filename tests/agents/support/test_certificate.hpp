#pragma once

// Throwaway TLS certificates for loopback tests, made with OpenSSL's API at test start (nothing
// checked in, nothing expires in the repository).

#include <filesystem>
#include <string>
#include <vector>

namespace warpsmith::test
{

struct certificate_files
{
    std::filesystem::path cert;  ///< PEM certificate; also the CA file a client trusts.
    std::filesystem::path key;   ///< PEM private key.
};

/// Writes a self-signed EC P-256 certificate (valid from an hour ago for two days) for `names` to
/// dir/<stem>.crt and dir/<stem>.key. Each name becomes a subjectAltName entry: IP for IPv4/IPv6
/// literals, DNS otherwise; the first is also the subject CN. Throws std::runtime_error.
certificate_files make_self_signed_certificate(const std::filesystem::path& dir,
                                               const std::vector<std::string>& names,
                                               const std::string& stem = "server");

}  // namespace warpsmith::test
