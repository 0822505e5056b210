#pragma once

// A candidate module's global state, kept to its load-time image (docs/hardening.md, "State
// between launches").
//
// `__device__` variables (and the user `__constant__` bank, writable through cvta.const) persist
// from one launch to the next. A kernel could keep a table of results keyed by its inputs there,
// or count its launches and skip work on the ones it guesses are unchecked. So right after the
// module loads, before anything runs, its data sections are copied aside, and before every launch
// that counts (validation runs, measured and checked timed launches, the wall-clock check,
// interleaved confirmation) they are copied back, outside the timed events: every launch finds
// the module exactly as loaded.
//
// The sections come from the cubin's ELF tables (cubin_symbols.hpp); the driver gives each
// symbol's device address (cuModuleGetGlobal). A section whose symbols all sit at one base, inside
// one device allocation, is restored with one copy over the whole section (padding included);
// otherwise symbol by symbol, over the sizes the driver reports.
// A writable section with bytes but no symbol the driver can place, or a __managed__ variable
// (managed memory lives outside the module image), makes the module unusable: a failure value,
// never a silent gap.

#include "harness/compile/cubin_symbols.hpp"
#include "harness/cuda/handles.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::worker
{

class module_state
{
public:
    module_state() = default;

    /// Finds the module's data and copies its load-time image aside (synchronously: the module was
    /// just loaded and nothing has run). Returns nullopt with why set when the state cannot be
    /// restored (see above). Sticky errors throw.
    static std::optional<module_state> capture(const cuda::module& m,
                                               const cubin_inventory& inventory,
                                               std::string& why);

    /// Queues the copies that put every region back to its load-time image.
    void restore(CUstream s) const;

    bool empty() const { return regions_.empty(); }
    std::size_t regions() const { return regions_.size(); }
    /// Bytes restored per launch.
    std::size_t bytes() const { return bytes_; }

private:
    struct region
    {
        CUdeviceptr address = 0;
        std::size_t bytes = 0;
        std::size_t image_offset = 0;
        std::string what;  ///< The section or symbol, for messages.
    };

    std::vector<region> regions_;
    std::size_t bytes_ = 0;
    cuda::device_buffer image_;
};

}  // namespace warpsmith::worker
