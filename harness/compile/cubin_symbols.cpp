#include "harness/compile/cubin_symbols.hpp"

#include <cstdint>
#include <cstring>

namespace warpsmith {

namespace {

constexpr std::uint32_t sht_symtab = 2;
constexpr unsigned stt_func = 2;
constexpr unsigned sto_cuda_entry = 0x10;
constexpr std::size_t section_header_size = 64;
constexpr std::size_t symbol_size = 24;

// Bounds-checked little-endian reads: a truncated or hostile cubin must not read out of range.
template <typename T>
bool read_at(std::string_view bytes, std::uint64_t offset, T& out)
{
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
        return false;
    std::memcpy(&out, bytes.data() + offset, sizeof(T));
    return true;
}

struct section
{
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t link = 0;
};

bool read_section(std::string_view elf, std::uint64_t shoff, std::uint32_t index, section& s)
{
    std::uint64_t base = shoff + std::uint64_t(index) * section_header_size;
    return read_at(elf, base + 4, s.type) && read_at(elf, base + 24, s.offset) &&
           read_at(elf, base + 32, s.size) && read_at(elf, base + 40, s.link) && s.offset <= elf.size() &&
           s.size <= elf.size() - s.offset;
}

}  // namespace

std::vector<std::string> cubin_entry_points(std::string_view elf)
{
    std::vector<std::string> entries;
    // ELF magic, 64-bit class, little-endian data: the only layout NVRTC produces.
    if (elf.size() < 64 ||
        elf.substr(0, 4) !=
            "\x7f"
            "ELF" ||
        elf[4] != 2 || elf[5] != 1)
        return entries;
    std::uint64_t shoff = 0;
    std::uint16_t shentsize = 0, shnum = 0;
    if (!read_at(elf, 40, shoff) || !read_at(elf, 58, shentsize) || !read_at(elf, 60, shnum) ||
        shentsize != section_header_size)
        return entries;
    for (std::uint32_t i = 0; i < shnum; ++i)
    {
        section symtab;
        if (!read_section(elf, shoff, i, symtab))
            return entries;
        if (symtab.type != sht_symtab)
            continue;
        section strtab;
        if (symtab.link >= shnum || !read_section(elf, shoff, symtab.link, strtab))
            return entries;
        std::string_view names = elf.substr(strtab.offset, strtab.size);
        for (std::uint64_t off = 0; off + symbol_size <= symtab.size; off += symbol_size)
        {
            std::uint32_t name = 0;
            std::uint8_t info = 0, other = 0;
            read_at(elf, symtab.offset + off, name);
            read_at(elf, symtab.offset + off + 4, info);
            read_at(elf, symtab.offset + off + 5, other);
            if ((info & 0xf) != stt_func || !(other & sto_cuda_entry) || name >= names.size())
                continue;
            std::string_view rest = names.substr(name);
            entries.emplace_back(rest.substr(0, rest.find('\0')));
        }
    }
    return entries;
}

}  // namespace warpsmith
