#include "harness/worker/kernel_launch.hpp"

#include "harness/core/error.hpp"
#include "harness/worker/local_window.hpp"
#include "harness/workload/dtype.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace warpsmith::worker
{
namespace
{

template <class T>
std::uint64_t store_bits(T value)
{
    std::uint64_t word = 0;
    std::memcpy(&word, &value, sizeof value);
    return word;
}

// Integer scalars must fit their dtype exactly; silently wrapping a size would launch the kernel
// on a problem other than the one the case describes.
template <class T>
std::uint64_t integer_bits(std::int64_t v, const std::string& where)
{
    if constexpr (std::is_same_v<T, std::uint64_t>)
    {
        if (v < 0)
            throw user_error(where + ": value " + std::to_string(v) + " does not fit uint64");
        return static_cast<std::uint64_t>(v);
    }
    else
    {
        if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            v > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
            throw user_error(where + ": value " + std::to_string(v) + " does not fit its type");
        return store_bits(static_cast<T>(v));
    }
}

}  // namespace

std::optional<loaded_kernel> load_kernel(std::string_view cubin,
                                         const std::string& entry,
                                         std::string& why,
                                         bool* image_rejected)
{
    loaded_kernel k;
    const cubin_inventory inventory = read_cubin_inventory(cubin);
    if (std::string refusal = device_heap_refusal(inventory); !refusal.empty())
    {
        why = std::move(refusal);
        if (image_rejected)
            *image_rejected = true;
        return std::nullopt;
    }
    try
    {
        k.module = cuda::module::load(cubin);
    }
    catch (const cuda::cuda_error& e)
    {
        if (e.is_sticky())
            throw;
        why = "the driver rejected the cubin: " + e.name() + " (compiled for another architecture?)";
        if (image_rejected)
            *image_rejected = true;
        return std::nullopt;
    }
    k.function = k.module.find_function(entry);
    if (!k.function)
    {
        why = "entry '" + entry + "' is not in the module (is it declared extern \"C\" __global__?)";
        return std::nullopt;
    }
    std::optional<module_state> state = module_state::capture(k.module, inventory, why);
    if (!state)
    {
        if (image_rejected)
            *image_rejected = true;
        return std::nullopt;
    }
    k.state = std::move(*state);
    k.entry = entry;
    k.params = read_kernel_params(cubin, entry);
    k.max_threads_per_block = cuda::function_attribute(k.function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    k.static_shared_bytes = cuda::function_attribute(k.function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    k.registers = cuda::function_attribute(k.function, CU_FUNC_ATTRIBUTE_NUM_REGS);
    k.local_bytes = cuda::function_attribute(k.function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    k.dynamic_shared_limit =
        cuda::function_attribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    return k;
}

std::string refuse_local_frame(const loaded_kernel& k)
{
    const auto frame = static_cast<std::size_t>(std::max(k.local_bytes, 0));
    if (frame > max_local_frame_bytes)
        return "'" + k.entry + "' uses " + std::to_string(frame) +
               " bytes of local memory per thread (stack frame and spills); the harness wipes local memory "
               "between launches and takes at most " +
               std::to_string(max_local_frame_bytes) + " bytes per thread";
    note_local_frame(frame);
    return {};
}

std::string format_dims(const std::array<std::int64_t, 3>& d)
{
    // Built with append: GCC 12 warns falsely (-Wrestrict) about "[" + std::to_string(...).
    std::string text(1, '[');
    text.append(std::to_string(d[0])).append(",").append(std::to_string(d[1])).append(",");
    text.append(std::to_string(d[2])).append("]");
    return text;
}

std::string prepare_launch(loaded_kernel& k, const launch_dims& d, const device_limits& limits)
{
    const auto block_text =
        std::to_string(d.block[0]) + "x" + std::to_string(d.block[1]) + "x" + std::to_string(d.block[2]);
    const char* axis = "xyz";
    for (int i = 0; i < 3; ++i)
    {
        if (d.grid[i] < 1 || d.block[i] < 1)
            return "grid " + format_dims(d.grid) + " and block " + format_dims(d.block) +
                   " must be positive in every dimension";
        if (d.block[i] > limits.max_block[i])
            return std::string("block.") + axis[i] + " = " + std::to_string(d.block[i]) +
                   " exceeds the device maximum of " + std::to_string(limits.max_block[i]);
        if (d.grid[i] > limits.max_grid[i])
            return std::string("grid.") + axis[i] + " = " + std::to_string(d.grid[i]) +
                   " exceeds the device maximum of " + std::to_string(limits.max_grid[i]);
    }
    const std::int64_t threads = d.threads_per_block();
    if (threads > limits.max_threads_per_block)
        return "block " + block_text + " = " + std::to_string(threads) +
               " threads exceeds the device maximum of " + std::to_string(limits.max_threads_per_block) +
               " threads per block";
    if (threads > k.max_threads_per_block)
        return "block " + block_text + " = " + std::to_string(threads) +
               " threads exceeds the kernel's maximum of " + std::to_string(k.max_threads_per_block) +
               " threads per block (it uses " + std::to_string(k.registers) +
               " registers per thread, or __launch_bounds__ limits it)";
    const std::int64_t available =
        static_cast<std::int64_t>(limits.shared_per_block_optin) - k.static_shared_bytes;
    if (d.shared_bytes > available)
        return "dynamic shared memory of " + std::to_string(d.shared_bytes) + " bytes exceeds the device's " +
               std::to_string(limits.shared_per_block_optin) +
               " bytes per block (opt-in maximum) minus the kernel's " +
               std::to_string(k.static_shared_bytes) + " bytes of static shared memory";
    // Beyond the default 48 KiB a kernel must opt in: raise its limit to what this launch needs
    // (never lower it, so a later case that needs less is unaffected).
    if (d.shared_bytes > k.dynamic_shared_limit)
    {
        CUresult rc = cuda::driver().cuFuncSetAttribute(
            k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(d.shared_bytes));
        if (rc != CUDA_SUCCESS)
        {
            if (cuda::is_sticky(rc))
                throw cuda::cuda_error(rc, "cuFuncSetAttribute");
            return "dynamic shared memory of " + std::to_string(d.shared_bytes) +
                   " bytes was refused by the driver (" + cuda::error_name(rc) + ")";
        }
        k.dynamic_shared_limit = static_cast<int>(d.shared_bytes);
    }
    return {};
}

kernel_args::kernel_args(const signature& sig,
                         const workload_case& c,
                         const std::vector<CUdeviceptr>& buffer_ptrs)
    : storage_(new std::uint64_t[sig.params.size() + 1]())
{
    std::size_t buffer_index = 0;
    for (std::size_t i = 0; i < sig.params.size(); ++i)
    {
        const param& p = sig.params[i];
        std::uint64_t& word = storage_[i];
        const std::string where = "case '" + c.name + "', scalar '" + p.name + "'";
        if (p.kind == param_kind::buffer)
        {
            if (buffer_index >= buffer_ptrs.size())
                throw std::logic_error("kernel_args: fewer buffer pointers than buffer parameters");
            word = buffer_ptrs[buffer_index++];
        }
        else if (is_floating(p.type))
        {
            auto it = c.float_values.find(p.name);
            if (it == c.float_values.end())
                throw user_error(where + ": no value in float_values");
            const double v = it->second;
            switch (p.type)
            {
                case dtype::float16:
                    word = double_to_half_bits(v);
                    break;
                case dtype::bfloat16:
                    word = double_to_bfloat16_bits(v);
                    break;
                case dtype::float32:
                    word = store_bits(static_cast<float>(v));
                    break;
                default:
                    word = store_bits(v);
                    break;
            }
        }
        else
        {
            auto it = c.values.find(p.name);
            if (it == c.values.end())
                throw user_error(where + ": no value in values");
            const std::int64_t v = it->second;
            switch (p.type)
            {
                case dtype::int8:
                    word = integer_bits<std::int8_t>(v, where);
                    break;
                case dtype::uint8:
                    word = integer_bits<std::uint8_t>(v, where);
                    break;
                case dtype::int16:
                    word = integer_bits<std::int16_t>(v, where);
                    break;
                case dtype::int32:
                    word = integer_bits<std::int32_t>(v, where);
                    break;
                case dtype::uint32:
                    word = integer_bits<std::uint32_t>(v, where);
                    break;
                case dtype::int64:
                    word = integer_bits<std::int64_t>(v, where);
                    break;
                default:
                    word = integer_bits<std::uint64_t>(v, where);
                    break;
            }
        }
        // Each parameter's bytes start at the beginning of its own 8-byte word; the driver copies
        // sizeof(param) bytes from the pointer it is given (little-endian host).
        pointers_.push_back(&word);
    }
}

std::string parameter_mismatch(const loaded_kernel& k, const signature& sig)
{
    if (!k.params)
        return "the kernel's parameter list cannot be read from its cubin (.nv.info." + k.entry + ")";
    const auto& declared = *k.params;
    if (declared.size() != sig.params.size())
        return "the kernel declares " + std::to_string(declared.size()) + " parameter" +
               (declared.size() == 1 ? "" : "s") + ", the workload's signature has " +
               std::to_string(sig.params.size());
    for (std::size_t i = 0; i < declared.size(); ++i)
    {
        const param& p = sig.params[i];
        const std::size_t expected = p.kind == param_kind::buffer ? sizeof(void*) : size_of(p.type);
        if (declared[i].size != expected)
            return "parameter " + std::to_string(i + 1) + " ('" + p.name + "') is " +
                   std::to_string(declared[i].size) + " bytes in the kernel, the signature's " +
                   (p.kind == param_kind::buffer ? std::string("pointer") : std::string(to_string(p.type))) +
                   " is " + std::to_string(expected);
    }
    return {};
}

CUresult launch_kernel(const loaded_kernel& k, const launch_dims& d, void** args, CUstream s)
{
    CUresult rc = cuda::driver().cuLaunchKernel(k.function,
                                                static_cast<unsigned>(d.grid[0]),
                                                static_cast<unsigned>(d.grid[1]),
                                                static_cast<unsigned>(d.grid[2]),
                                                static_cast<unsigned>(d.block[0]),
                                                static_cast<unsigned>(d.block[1]),
                                                static_cast<unsigned>(d.block[2]),
                                                static_cast<unsigned>(d.shared_bytes),
                                                s,
                                                args,
                                                nullptr);
    if (rc != CUDA_SUCCESS && cuda::is_sticky(rc))
        throw cuda::cuda_error(rc, "cuLaunchKernel");
    return rc;
}

}  // namespace warpsmith::worker
