#include "tests/agents/support/test_certificate.hpp"

#include <memory>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdexcept>

namespace warpsmith::test
{
namespace
{

template <auto Free>
struct deleter
{
    template <class T>
    void operator()(T* p) const
    {
        Free(p);
    }
};

using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509_free>>;
using bio_ptr = std::unique_ptr<BIO, deleter<BIO_free_all>>;

void check(bool ok, const char* what)
{
    if (!ok)
        throw std::runtime_error(std::string("test certificate: ") + what + " failed");
}

bool is_ip_literal(const std::string& name)
{
    return name.find_first_not_of("0123456789.") == std::string::npos || name.find(':') != std::string::npos;
}

void add_extension(X509* cert, int nid, const std::string& value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    check(ext != nullptr, "X509V3_EXT_conf_nid");
    bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    check(ok, "X509_add_ext");
}

}  // namespace

certificate_files make_self_signed_certificate(const std::filesystem::path& dir,
                                               const std::vector<std::string>& names,
                                               const std::string& stem)
{
    check(!names.empty(), "a certificate without names");
    pkey_ptr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    check(key != nullptr, "EVP_PKEY_Q_keygen");
    x509_ptr cert(X509_new());
    check(cert != nullptr, "X509_new");
    check(X509_set_version(cert.get(), 2) == 1, "X509_set_version");
    unsigned char serial[8];
    check(RAND_bytes(serial, sizeof serial) == 1, "RAND_bytes");
    long serial_value = 1;
    for (unsigned char b : serial)
        serial_value = (serial_value << 7) ^ b;
    check(ASN1_INTEGER_set(X509_get_serialNumber(cert.get()),
                           serial_value < 0 ? -serial_value : serial_value) == 1,
          "ASN1_INTEGER_set");
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 2 * 86400);
    check(X509_set_pubkey(cert.get(), key.get()) == 1, "X509_set_pubkey");
    X509_NAME* subject = X509_get_subject_name(cert.get());
    check(X509_NAME_add_entry_by_txt(subject,
                                     "O",
                                     MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("warpsmith tests"),
                                     -1,
                                     -1,
                                     0) == 1,
          "X509_NAME_add_entry_by_txt");
    check(X509_NAME_add_entry_by_txt(subject,
                                     "CN",
                                     MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>(names.front().c_str()),
                                     -1,
                                     -1,
                                     0) == 1,
          "X509_NAME_add_entry_by_txt");
    check(X509_set_issuer_name(cert.get(), subject) == 1, "X509_set_issuer_name");

    // Self-signed and marked as a CA so that clients can load it as their trust anchor.
    add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
    add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), NID_subject_key_identifier, "hash");
    std::string san;
    for (const auto& name : names)
    {
        if (!san.empty())
            san += ",";
        san += (is_ip_literal(name) ? "IP:" : "DNS:") + name;
    }
    add_extension(cert.get(), NID_subject_alt_name, san);
    check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "X509_sign");

    std::filesystem::create_directories(dir);
    certificate_files files{dir / (stem + ".crt"), dir / (stem + ".key")};
    {
        bio_ptr out(BIO_new_file(files.cert.c_str(), "w"));
        check(out != nullptr, "BIO_new_file (certificate)");
        check(PEM_write_bio_X509(out.get(), cert.get()) == 1, "PEM_write_bio_X509");
    }
    {
        bio_ptr out(BIO_new_file(files.key.c_str(), "w"));
        check(out != nullptr, "BIO_new_file (key)");
        check(PEM_write_bio_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1,
              "PEM_write_bio_PrivateKey");
    }
    return files;
}

}  // namespace warpsmith::test
