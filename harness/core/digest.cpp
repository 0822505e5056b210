#include "harness/core/digest.hpp"

#include "harness/core/error.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <openssl/evp.h>
#include <stdexcept>
#include <vector>

namespace warpsmith
{

namespace
{

std::string to_hex(const unsigned char* data, unsigned len)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(std::size_t{len} * 2);
    for (unsigned i = 0; i < len; ++i)
    {
        out += digits[data[i] >> 4];
        out += digits[data[i] & 15];
    }
    return out;
}

}  // namespace

sha256_builder::sha256_builder() : ctx_(EVP_MD_CTX_new())
{
    if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
}

sha256_builder::~sha256_builder()
{
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

sha256_builder& sha256_builder::add(std::string_view part)
{
    std::uint64_t n = part.size();
    unsigned char len[8];
    for (int i = 0; i < 8; ++i)
        len[i] = static_cast<unsigned char>(n >> (8 * i));
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), len, sizeof len);
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), part.data(), part.size());
    return *this;
}

std::string sha256_builder::hex()
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
    return to_hex(md, len);
}

std::string sha256_hex(std::string_view bytes)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: SHA-256 failed");
    return to_hex(md, len);
}

std::string sha256_file_hex(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw user_error(path.string() + ": cannot read file (" + std::strerror(errno) + ")");
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
    std::vector<char> buf(1 << 20);
    while (in)
    {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (in.gcount() > 0)
            EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        throw user_error(path.string() + ": cannot read file");
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &len);
    return to_hex(md, len);
}

std::string base64_encode(std::string_view bytes)
{
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::string base64_decode(std::string_view text)
{
    if (text.size() % 4 != 0)
        throw user_error("base64: length is not a multiple of 4");
    std::string out(3 * (text.size() / 4) + 1, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(text.data()),
                            static_cast<int>(text.size()));
    if (n < 0)
        throw user_error("base64: malformed input");
    // EVP_DecodeBlock counts padding as zero bytes; drop them.
    std::size_t size = static_cast<std::size_t>(n);
    if (!text.empty() && text.back() == '=')
        --size;
    if (text.size() >= 2 && text[text.size() - 2] == '=')
        --size;
    out.resize(size);
    return out;
}

}  // namespace warpsmith
