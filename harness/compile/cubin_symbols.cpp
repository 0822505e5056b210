#include "harness/compile/cubin_symbols.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace warpsmith
{

namespace
{

constexpr std::uint32_t sht_symtab = 2;
constexpr std::uint32_t sht_nobits = 8;
constexpr std::uint64_t shf_write = 0x1;
constexpr std::uint64_t shf_alloc = 0x2;
constexpr std::uint64_t shf_execinstr = 0x4;
constexpr unsigned stt_object = 1;
constexpr unsigned stt_func = 2;
constexpr unsigned sto_cuda_entry = 0x10;
constexpr std::uint16_t shn_undef = 0;
constexpr std::uint16_t shn_loreserve = 0xff00;
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
    std::uint32_t name = 0;
    std::uint32_t type = 0;
    std::uint64_t flags = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t link = 0;
};

struct symbol
{
    std::string_view name;
    unsigned type = 0;
    std::uint8_t other = 0;
    std::uint16_t section = 0;
    std::uint64_t value = 0;
    std::uint64_t size = 0;
};

bool read_section(std::string_view elf, std::uint64_t shoff, std::uint32_t index, section& s)
{
    const std::uint64_t base = shoff + std::uint64_t(index) * section_header_size;
    if (!(read_at(elf, base, s.name) && read_at(elf, base + 4, s.type) && read_at(elf, base + 8, s.flags) &&
          read_at(elf, base + 24, s.offset) && read_at(elf, base + 32, s.size) &&
          read_at(elf, base + 40, s.link)))
        return false;
    // NOBITS sections occupy no file bytes; every other one must lie inside the file.
    return s.type == sht_nobits || (s.offset <= elf.size() && s.size <= elf.size() - s.offset);
}

std::string_view string_at(std::string_view table, std::uint32_t offset)
{
    if (offset >= table.size())
        return {};
    std::string_view rest = table.substr(offset);
    return rest.substr(0, rest.find('\0'));
}

/// The parsed tables of one ELF64 little-endian file: sections with names, and every symbol.
struct elf_tables
{
    std::vector<section> sections;
    std::vector<std::string_view> section_names;
    std::vector<symbol> symbols;
};

std::optional<elf_tables> read_elf(std::string_view elf)
{
    // ELF magic, 64-bit class, little-endian data: the only layout NVRTC produces.
    if (elf.size() < 64 ||
        elf.substr(0, 4) != std::string_view("\x7f"
                                             "ELF",
                                             4) ||
        elf[4] != 2 || elf[5] != 1)
        return std::nullopt;
    std::uint64_t shoff = 0;
    std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
    if (!read_at(elf, 40, shoff) || !read_at(elf, 58, shentsize) || !read_at(elf, 60, shnum) ||
        !read_at(elf, 62, shstrndx) || shentsize != section_header_size)
        return std::nullopt;
    elf_tables t;
    t.sections.resize(shnum);
    for (std::uint32_t i = 0; i < shnum; ++i)
        if (!read_section(elf, shoff, i, t.sections[i]))
            return std::nullopt;
    std::string_view names;
    if (shstrndx < shnum && t.sections[shstrndx].type != sht_nobits)
        names = elf.substr(t.sections[shstrndx].offset, t.sections[shstrndx].size);
    for (const section& s : t.sections)
        t.section_names.push_back(string_at(names, s.name));
    for (const section& symtab : t.sections)
    {
        if (symtab.type != sht_symtab)
            continue;
        if (symtab.link >= shnum || t.sections[symtab.link].type == sht_nobits)
            return std::nullopt;
        const section& strtab = t.sections[symtab.link];
        const std::string_view strings = elf.substr(strtab.offset, strtab.size);
        for (std::uint64_t off = 0; off + symbol_size <= symtab.size; off += symbol_size)
        {
            std::uint32_t name = 0;
            std::uint8_t info = 0;
            symbol sym;
            const std::uint64_t at = symtab.offset + off;
            if (!(read_at(elf, at, name) && read_at(elf, at + 4, info) && read_at(elf, at + 5, sym.other) &&
                  read_at(elf, at + 6, sym.section) && read_at(elf, at + 8, sym.value) &&
                  read_at(elf, at + 16, sym.size)))
                return std::nullopt;
            sym.type = info & 0xf;
            sym.name = string_at(strings, name);
            t.symbols.push_back(sym);
        }
    }
    return t;
}

bool is_data_section(std::string_view name, const section& s)
{
    if (!(s.flags & shf_alloc) || (s.flags & shf_execinstr))
        return false;
    if (name.starts_with(".nv.shared") || name.starts_with(".nv.local"))
        return false;  // Per-launch memory, not module state.
    // The user's __constant__ bank is restored too: a generic pointer made with cvta.const can
    // write its backing store.
    return (s.flags & shf_write) || name == ".nv.constant3";
}

}  // namespace

std::vector<std::string> cubin_entry_points(std::string_view elf)
{
    std::vector<std::string> entries;
    const std::optional<elf_tables> t = read_elf(elf);
    if (!t)
        return entries;
    for (const symbol& s : t->symbols)
        if (s.type == stt_func && (s.other & sto_cuda_entry) && !s.name.empty())
            entries.emplace_back(s.name);
    return entries;
}

cubin_inventory read_cubin_inventory(std::string_view elf)
{
    cubin_inventory inv;
    const std::optional<elf_tables> t = read_elf(elf);
    if (!t)
        return inv;
    std::vector<std::optional<std::size_t>> data_index(t->sections.size());
    for (std::size_t i = 0; i < t->sections.size(); ++i)
    {
        const section& s = t->sections[i];
        if (!is_data_section(t->section_names[i], s))
            continue;
        data_index[i] = inv.sections.size();
        inv.sections.push_back(cubin_data_section{
            std::string(t->section_names[i]), s.size, (s.flags & shf_write) != 0, s.type == sht_nobits});
    }
    for (const symbol& s : t->symbols)
    {
        if (s.type == stt_func && s.section == shn_undef && !s.name.empty())
        {
            if (std::find(inv.undefined_functions.begin(), inv.undefined_functions.end(), s.name) ==
                inv.undefined_functions.end())
                inv.undefined_functions.emplace_back(s.name);
            continue;
        }
        if (s.type != stt_object || s.section == shn_undef || s.section >= shn_loreserve ||
            s.section >= data_index.size() || !data_index[s.section])
            continue;
        inv.symbols.push_back(
            cubin_data_symbol{std::string(s.name), *data_index[s.section], s.value, s.size, s.other});
    }
    inv.valid = true;
    return inv;
}

std::optional<std::vector<cubin_kernel_param>> read_kernel_params(std::string_view elf,
                                                                  std::string_view entry)
{
    const std::optional<elf_tables> t = read_elf(elf);
    if (!t || entry.empty())
        return std::nullopt;
    const std::string wanted = ".nv.info." + std::string(entry);
    const section* info = nullptr;
    for (std::size_t i = 0; i < t->sections.size(); ++i)
        if (t->section_names[i] == wanted && t->sections[i].type != sht_nobits)
            info = &t->sections[i];
    if (!info)
        return std::nullopt;
    const std::string_view bytes = elf.substr(info->offset, info->size);
    // Records: a format byte, an attribute byte, then either a 16-bit value (formats 1-3) or a
    // 16-bit length and that many bytes (format 4, EIFMT_SVAL).
    constexpr std::uint8_t eifmt_sval = 0x04;
    constexpr std::uint8_t eiattr_kparam_info = 0x17;
    std::vector<cubin_kernel_param> params;
    std::uint64_t at = 0;
    while (at + 4 <= bytes.size())
    {
        const auto format = static_cast<std::uint8_t>(bytes[at]);
        const auto attribute = static_cast<std::uint8_t>(bytes[at + 1]);
        std::uint16_t length = 0;
        if (!read_at(bytes, at + 2, length))
            return std::nullopt;
        if (format != eifmt_sval)
        {
            at += 4;
            continue;
        }
        if (bytes.size() - (at + 4) < length)
            return std::nullopt;
        if (attribute == eiattr_kparam_info)
        {
            // index (u32), ordinal (u16), offset (u16), flags (u32: size in bits 18-31).
            std::uint16_t ordinal = 0, offset = 0;
            std::uint32_t flags = 0;
            if (length < 12 || !read_at(bytes, at + 8, ordinal) || !read_at(bytes, at + 10, offset) ||
                !read_at(bytes, at + 12, flags))
                return std::nullopt;
            params.push_back({ordinal, offset, flags >> 18});
        }
        at += 4 + std::uint64_t(length);
    }
    std::sort(params.begin(),
              params.end(),
              [](const cubin_kernel_param& a, const cubin_kernel_param& b) { return a.ordinal < b.ordinal; });
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].ordinal != i)
            return std::nullopt;
    return params;
}

std::string device_heap_refusal(const cubin_inventory& inventory)
{
    for (const std::string& f : inventory.undefined_functions)
        if (f == "malloc" || f == "free" || f.find("aligned_device_malloc") != std::string::npos ||
            f.find("_malloc") != std::string::npos)
            return "the kernel uses the device-side heap (it calls " + f +
                   "; operator new and delete call malloc and free): heap blocks outlive a launch and would "
                   "let "
                   "a kernel keep results between launches, so device-side malloc/free/new/delete are not "
                   "allowed; "
                   "use the workload's buffers or shared memory";
    return {};
}

}  // namespace warpsmith
