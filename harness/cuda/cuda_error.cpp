#include "harness/cuda/cuda_error.hpp"

#include "harness/cuda/driver_api.hpp"
#include "harness/cuda/handles.hpp"

namespace warpsmith::cuda
{
namespace
{

class cuda_category_impl final : public boost::system::error_category
{
public:
    const char* name() const noexcept override { return "cuda"; }

    std::string message(int ev) const override
    {
        auto result = static_cast<CUresult>(ev);
        std::string text = error_name(result);
        if (std::string description = error_description(result); !description.empty())
            text.append(" (").append(description).append(")");
        return text;
    }
};

}  // namespace

const boost::system::error_category& cuda_category() noexcept
{
    static const cuda_category_impl instance;
    return instance;
}

bool is_sticky(CUresult result) noexcept
{
    switch (result)
    {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ECC_UNCORRECTABLE:
        case CUDA_ERROR_CONTAINED:
        case CUDA_ERROR_UNKNOWN:
            return true;
        default:
            return false;
    }
}

cuda_error::cuda_error(CUresult result, std::string call)
    : warpsmith::system_error(boost::system::error_code(static_cast<int>(result), cuda_category()), call),
      result_(result),
      name_(error_name(result)),
      call_(std::move(call))
{
    // A sticky error means the context is gone for good; make sure no destructor run while this
    // exception unwinds the stack calls into it (see mark_context_lost).
    if (cuda::is_sticky(result))
        mark_context_lost();
}

}  // namespace warpsmith::cuda
