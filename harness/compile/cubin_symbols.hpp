#pragma once

// Reading a cubin's ELF tables: a cubin is an ELF64 file whose kernels are FUNC symbols flagged
// STO_CUDA_ENTRY (0x10) in st_other; non-inlined device functions are FUNC symbols without the
// flag. Its module-scope data lives in sections: `.nv.global` (zero-initialised `__device__`
// variables, NOBITS), `.nv.global.init` (initialised ones), `.nv.constant3` (user `__constant__`
// data); functions it needs from the driver (device-side malloc/free, printf's vprintf) are
// undefined FUNC symbols. The worker uses the data inventory to restore every module global before
// each launch (harness/worker/module_state.hpp) and the undefined functions to refuse the device
// heap.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// Entry-point names in symbol-table order; empty when the bytes are not a little-endian ELF64
/// file or hold no kernels. Never throws on malformed input.
std::vector<std::string> cubin_entry_points(std::string_view cubin);

/// A section that holds module data a kernel can change or read (not code, not notes).
struct cubin_data_section
{
    std::string name;        ///< ".nv.global", ".nv.global.init", ".nv.constant3", ...
    std::uint64_t size = 0;  ///< Bytes the section occupies once loaded.
    bool writable = false;   ///< SHF_WRITE.
    bool nobits = false;     ///< Zero-initialised (no bytes in the file).
};

/// An OBJECT symbol defined in one of the data sections.
struct cubin_data_symbol
{
    std::string name;
    std::size_t section = 0;   ///< Index into cubin_inventory::sections.
    std::uint64_t offset = 0;  ///< st_value: offset within its section.
    std::uint64_t size = 0;
    std::uint8_t other = 0;  ///< st_other (0x4 marks __managed__ variables).

    bool is_managed() const { return (other & 0x4) != 0; }
};

struct cubin_inventory
{
    bool valid = false;  ///< False when the bytes are not a well-formed ELF64 cubin.
    std::vector<cubin_data_section> sections;
    std::vector<cubin_data_symbol> symbols;
    std::vector<std::string> undefined_functions;  ///< "malloc", "free", "vprintf", ...
};

/// The data sections (`.nv.global*`, `.nv.constant3` and any other allocated, writable section
/// outside `.nv.shared*` / `.nv.local*`), the OBJECT symbols in them, and the undefined functions.
/// Never throws on malformed input (valid stays false).
cubin_inventory read_cubin_inventory(std::string_view cubin);

/// One parameter of a kernel as its cubin declares it: what the driver copies from the host for
/// it at a launch (`size` bytes to `offset` in the parameter block).
struct cubin_kernel_param
{
    std::uint32_t ordinal = 0;
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
};

/// The parameters of kernel `entry`, by ordinal, from its `.nv.info.<entry>` section
/// (EIATTR_KPARAM_INFO records: ordinal, offset, and the size in the top 14 bits of the flags word),
/// or nullopt when the section is missing or malformed (or an ordinal repeats or leaves a gap).
/// The driver reads these same records to copy a launch's arguments, so a kernel that declares a
/// 4 KiB struct where the signature has an int makes cuLaunchKernel copy 4 KiB of the host's
/// memory from the int's address: check the sizes before launching (kernel_launch.hpp).
std::optional<std::vector<cubin_kernel_param>> read_kernel_params(std::string_view cubin,
                                                                  std::string_view entry);

/// Why a module must not run, or "" when it may: it calls the device-side heap (malloc, free, the
/// aligned variants; operator new and delete compile to these), whose blocks outlive a launch and
/// cannot be restored between launches.
std::string device_heap_refusal(const cubin_inventory& inventory);

}  // namespace warpsmith
