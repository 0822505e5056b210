#include "harness/worker/module_state.hpp"

#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace warpsmith::worker
{

namespace
{

struct placed_symbol
{
    const cubin_data_symbol* symbol = nullptr;
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
};

/// The symbol's device address and size, or nullopt when the driver does not know the name.
std::optional<placed_symbol> place(const cuda::module& m, const cubin_data_symbol& s)
{
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
    const CUresult rc = cuda::driver().cuModuleGetGlobal(&address, &bytes, m.get(), s.name.c_str());
    if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE)
        return std::nullopt;
    if (rc != CUDA_SUCCESS)
        throw cuda::cuda_error(rc, "cuModuleGetGlobal");
    return placed_symbol{&s, address, bytes};
}

/// True when [address, address + bytes) lies inside one device allocation (the range a copy may
/// touch). The driver places a module's data in allocations of its own choosing; a section's
/// extent in the ELF file need not be what it allocated.
bool inside_one_allocation(CUdeviceptr address, std::size_t bytes)
{
    CUdeviceptr start = 0;
    std::size_t size = 0;
    if (cuda::driver().cuMemGetAddressRange(&start, &size, address) != CUDA_SUCCESS)
        return false;
    return address >= start && address + bytes <= start + size;
}

std::string hex(CUdeviceptr p)
{
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(p));
    return text;
}

}  // namespace

std::optional<module_state> module_state::capture(const cuda::module& m,
                                                  const cubin_inventory& inventory,
                                                  std::string& why)
{
    module_state state;
    if (!inventory.valid)
    {
        why =
            "the cubin's ELF tables cannot be read, so its module globals cannot be restored between "
            "launches";
        return std::nullopt;
    }
    std::map<std::size_t, std::vector<placed_symbol>> by_section;
    for (const cubin_data_symbol& s : inventory.symbols)
    {
        if (s.is_managed())
        {
            why = "__managed__ variable '" + s.name +
                  "': managed memory outlives a launch and cannot be restored between launches, so it is not "
                  "allowed; use __device__ variables or the workload's buffers";
            return std::nullopt;
        }
        if (s.size == 0)
            continue;
        std::optional<placed_symbol> p = place(m, s);
        if (p)
            by_section[s.section].push_back(*p);
    }

    std::vector<region> regions;
    for (std::size_t i = 0; i < inventory.sections.size(); ++i)
    {
        const cubin_data_section& sec = inventory.sections[i];
        if (sec.size == 0)
            continue;
        auto it = by_section.find(i);
        if (it == by_section.end())
        {
            // The user's __constant__ bank counts as writable: a generic pointer made with
            // cvta.const stores into its backing memory. Other read-only sections are not reachable.
            if (!sec.writable && sec.name != ".nv.constant3")
                continue;
            why = "section " + sec.name + " holds " + std::to_string(sec.size) +
                  " bytes of module data that the driver does not name, so it cannot be restored between "
                  "launches";
            if (sec.name == ".nv.constant3")
                why += " (a 'static' __constant__ variable? declare it without 'static')";
            return std::nullopt;
        }
        const std::vector<placed_symbol>& placed = it->second;
        const CUdeviceptr base = placed.front().address - placed.front().symbol->offset;
        const bool one_base =
            std::all_of(placed.begin(),
                        placed.end(),
                        [&](const placed_symbol& p) { return p.address - p.symbol->offset == base; });
        const auto bytes = static_cast<std::size_t>(sec.size);
        if (one_base && inside_one_allocation(base, bytes))
        {
            regions.push_back(region{base, bytes, 0, sec.name});
            continue;
        }
        for (const placed_symbol& p : placed)
        {
            if (p.bytes == 0)
                continue;
            if (!inside_one_allocation(p.address, p.bytes))
            {
                why = "module variable '" + p.symbol->name + "' (" + std::to_string(p.bytes) + " bytes at " +
                      hex(p.address) +
                      ") is not inside one device allocation, so it cannot be restored "
                      "between launches";
                return std::nullopt;
            }
            regions.push_back(region{p.address, p.bytes, 0, p.symbol->name});
        }
    }
    if (regions.empty())
        return state;

    std::size_t total = 0;
    for (region& r : regions)
    {
        r.image_offset = total;
        total += (r.bytes + 255) / 256 * 256;
    }
    state.image_ = cuda::device_buffer(total);
    // Whatever the driver queued to initialise the module (on the legacy stream) is done first.
    WARPSMITH_CU(cuCtxSynchronize);
    for (const region& r : regions)
    {
        const CUresult rc = cuda::driver().cuMemcpyDtoDAsync(
            state.image_.ptr() + r.image_offset, r.address, r.bytes, nullptr);
        if (rc != CUDA_SUCCESS)
            throw cuda::cuda_error(rc,
                                   "cuMemcpyDtoDAsync (saving module data " + r.what + ", " +
                                       std::to_string(r.bytes) + " bytes at " + hex(r.address) + ")");
        state.bytes_ += r.bytes;
    }
    WARPSMITH_CU(cuCtxSynchronize);
    state.regions_ = std::move(regions);
    return state;
}

void module_state::restore(CUstream s) const
{
    for (const region& r : regions_)
    {
        const CUresult rc =
            cuda::driver().cuMemcpyDtoDAsync(r.address, image_.ptr() + r.image_offset, r.bytes, s);
        if (rc != CUDA_SUCCESS)
            throw cuda::cuda_error(rc,
                                   "cuMemcpyDtoDAsync (restoring module data " + r.what + ", " +
                                       std::to_string(r.bytes) + " bytes at " + hex(r.address) + ")");
    }
}

}  // namespace warpsmith::worker
