#include "harness/cuda/handles.hpp"

#include "harness/core/error.hpp"
#include "harness/core/log.hpp"

#include <atomic>
#include <utility>

namespace warpsmith::cuda
{
namespace
{

std::atomic<bool> g_context_lost{false};

// Destructors must not throw; a failed release is worth a debug line and nothing more.
void release_checked(CUresult rc, const char* call) noexcept
{
    if (rc != CUDA_SUCCESS)
        log_debug(std::string(call) + " failed during cleanup: " + error_name(rc));
}

}  // namespace

void mark_context_lost() noexcept
{
    g_context_lost.store(true);
}
bool context_lost() noexcept
{
    return g_context_lost.load();
}

// ---- primary_context ----------------------------------------------------------------------------

primary_context::primary_context(int ordinal) : ordinal_(ordinal)
{
    int count = device_count();
    if (ordinal < 0 || ordinal >= count)
        throw user_error("CUDA device " + std::to_string(ordinal) + " does not exist (" +
                         std::to_string(count) + " device" + (count == 1 ? "" : "s") + " present)");
    WARPSMITH_CU(cuDeviceGet, &device_, ordinal);
    WARPSMITH_CU(cuDevicePrimaryCtxRetain, &context_, device_);
    try
    {
        make_current();
    }
    catch (...)
    {
        driver().cuDevicePrimaryCtxRelease(device_);
        throw;
    }
}

primary_context::~primary_context()
{
    if (context_ && !context_lost())
    {
        driver().cuCtxSetCurrent(nullptr);
        release_checked(driver().cuDevicePrimaryCtxRelease(device_), "cuDevicePrimaryCtxRelease");
    }
}

void primary_context::make_current() const
{
    WARPSMITH_CU(cuCtxSetCurrent, context_);
}

// ---- device_buffer ------------------------------------------------------------------------------

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes)
{
    if (bytes > 0)
        WARPSMITH_CU(cuMemAlloc, &ptr_, bytes);
}

device_buffer::~device_buffer()
{
    reset();
}

device_buffer::device_buffer(device_buffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0))
{
}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept
{
    if (this != &other)
    {
        reset();
        ptr_ = std::exchange(other.ptr_, 0);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void device_buffer::reset() noexcept
{
    if (ptr_ && !context_lost())
        release_checked(driver().cuMemFree(ptr_), "cuMemFree");
    ptr_ = 0;
    bytes_ = 0;
}

void device_buffer::upload(const void* data, std::size_t bytes)
{
    if (bytes > bytes_)
        throw std::logic_error("device_buffer::upload: " + std::to_string(bytes) +
                               " bytes into a buffer of " + std::to_string(bytes_));
    if (bytes > 0)
        WARPSMITH_CU(cuMemcpyHtoD, ptr_, data, bytes);
}

// ---- pinned_buffer ------------------------------------------------------------------------------

pinned_buffer::pinned_buffer(std::size_t bytes) : bytes_(bytes)
{
    if (bytes > 0)
        WARPSMITH_CU(cuMemAllocHost, &ptr_, bytes);
}

pinned_buffer::~pinned_buffer()
{
    reset();
}

pinned_buffer::pinned_buffer(pinned_buffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
{
}

pinned_buffer& pinned_buffer::operator=(pinned_buffer&& other) noexcept
{
    if (this != &other)
    {
        reset();
        ptr_ = std::exchange(other.ptr_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void pinned_buffer::reset() noexcept
{
    if (ptr_ && !context_lost())
        release_checked(driver().cuMemFreeHost(ptr_), "cuMemFreeHost");
    ptr_ = nullptr;
    bytes_ = 0;
}

// ---- module -------------------------------------------------------------------------------------

module module::load(std::string_view image)
{
    module m;
    // cuModuleLoadData reads the cubin's ELF header for its size; the string's bytes stay alive
    // for the duration of the call, which is all the driver needs.
    WARPSMITH_CU(cuModuleLoadData, &m.module_, image.data());
    return m;
}

module::~module()
{
    reset();
}

module::module(module&& other) noexcept :module_(std::exchange(other.module_, nullptr)) {}

module& module::operator=(module&& other) noexcept
{
    if (this != &other)
    {
        reset();
        module_ = std::exchange(other.module_, nullptr);
    }
    return *this;
}

void module::reset() noexcept
{
    if (module_ && !context_lost())
        release_checked(driver().cuModuleUnload(module_), "cuModuleUnload");
    module_ = nullptr;
}

CUfunction module::find_function(const std::string& name) const
{
    CUfunction f = nullptr;
    CUresult rc = driver().cuModuleGetFunction(&f, module_, name.c_str());
    if (rc == CUDA_ERROR_NOT_FOUND)
        return nullptr;
    check(rc, "cuModuleGetFunction");
    return f;
}

CUfunction module::function(const std::string& name) const
{
    CUfunction f = nullptr;
    WARPSMITH_CU(cuModuleGetFunction, &f, module_, name.c_str());
    return f;
}

// ---- stream -------------------------------------------------------------------------------------

stream::stream()
{
    WARPSMITH_CU(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
}

stream::~stream()
{
    reset();
}

stream::stream(stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

stream& stream::operator=(stream&& other) noexcept
{
    if (this != &other)
    {
        reset();
        stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
}

void stream::reset() noexcept
{
    if (stream_ && !context_lost())
        release_checked(driver().cuStreamDestroy(stream_), "cuStreamDestroy");
    stream_ = nullptr;
}

// ---- event --------------------------------------------------------------------------------------

event::event(unsigned flags)
{
    WARPSMITH_CU(cuEventCreate, &event_, flags);
}

event::~event()
{
    reset();
}

event::event(event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

event& event::operator=(event&& other) noexcept
{
    if (this != &other)
    {
        reset();
        event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
}

void event::reset() noexcept
{
    if (event_ && !context_lost())
        release_checked(driver().cuEventDestroy(event_), "cuEventDestroy");
    event_ = nullptr;
}

void event::record(CUstream s) const
{
    WARPSMITH_CU(cuEventRecord, event_, s);
}

float event::elapsed_ms(const event& start, const event& end)
{
    float ms = 0;
    WARPSMITH_CU(cuEventElapsedTime, &ms, start.event_, end.event_);
    return ms;
}

// ---- attributes ---------------------------------------------------------------------------------

int device_attribute(CUdevice device, CUdevice_attribute attribute)
{
    int value = 0;
    WARPSMITH_CU(cuDeviceGetAttribute, &value, attribute, device);
    return value;
}

int function_attribute(CUfunction function, CUfunction_attribute attribute)
{
    int value = 0;
    WARPSMITH_CU(cuFuncGetAttribute, &value, attribute, function);
    return value;
}

}  // namespace warpsmith::cuda
