#pragma once

// RAII over the driver objects the worker owns. Each handle is move-only; its destructor releases
// the object and never throws (a release that fails, e.g. after a sticky error, is logged at debug
// level and ignored: the process is about to exit in that case anyway).
//
// Every handle assumes the primary context of its device is current on the calling thread; the
// worker keeps all CUDA work on one thread, which makes that true by construction.

#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace warpsmith::cuda
{

/// Marks the context as lost: after a sticky error or a kernel that never finishes, releasing
/// driver objects is pointless (the process is about to exit) and may block forever (unloading a
/// module whose kernel still runs waits for it). From then on every handle destructor leaks
/// instead of calling the driver. cuda_error marks sticky errors itself; the watchdog marks hangs.
void mark_context_lost() noexcept;
bool context_lost() noexcept;

/// The device's primary context, retained for the handle's lifetime and made current on the
/// constructing thread (the context the CUDA runtime would also use; sharing it keeps one context
/// per device per process).
class primary_context
{
public:
    /// Throws user_error when the ordinal does not name a device, cuda_error on driver failures.
    explicit primary_context(int ordinal);
    ~primary_context();
    primary_context(const primary_context&) = delete;
    primary_context& operator=(const primary_context&) = delete;

    /// Makes the context current on the calling thread.
    void make_current() const;
    CUdevice device() const { return device_; }
    CUcontext get() const { return context_; }
    int ordinal() const { return ordinal_; }

private:
    int ordinal_ = 0;
    CUdevice device_ = 0;
    CUcontext context_ = nullptr;
};

/// Device memory from cuMemAlloc (at least 256-byte aligned). A zero-byte buffer holds no memory
/// and has ptr() == 0.
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(std::size_t bytes);
    ~device_buffer();
    device_buffer(device_buffer&& other) noexcept;
    device_buffer& operator=(device_buffer&& other) noexcept;
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    CUdeviceptr ptr() const { return ptr_; }
    std::size_t size() const { return bytes_; }
    void reset() noexcept;

    /// Synchronous host-to-device upload of `bytes` at the start of the buffer.
    void upload(const void* data, std::size_t bytes);

private:
    CUdeviceptr ptr_ = 0;
    std::size_t bytes_ = 0;
};

/// Page-locked host memory (cuMemAllocHost), for asynchronous copies the host reads afterwards.
class pinned_buffer
{
public:
    pinned_buffer() = default;
    explicit pinned_buffer(std::size_t bytes);
    ~pinned_buffer();
    pinned_buffer(pinned_buffer&& other) noexcept;
    pinned_buffer& operator=(pinned_buffer&& other) noexcept;
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;

    void* data() const { return ptr_; }
    std::size_t size() const { return bytes_; }
    template <class T>
    T* as() const
    {
        return static_cast<T*>(ptr_);
    }

private:
    void reset() noexcept;
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

/// A module loaded from a cubin image (never PTX: SPEC §3 compiles straight to machine code).
class module
{
public:
    module() = default;
    /// cuModuleLoadData; a bad image throws cuda_error (CUDA_ERROR_INVALID_IMAGE, ...).
    static module load(std::string_view image);
    ~module();
    module(module&& other) noexcept;
    module& operator=(module&& other) noexcept;
    module(const module&) = delete;
    module& operator=(const module&) = delete;

    /// The function named `name`, or nullptr when the module has no such entry.
    CUfunction find_function(const std::string& name) const;
    /// The function named `name`; throws cuda_error (CUDA_ERROR_NOT_FOUND) when absent.
    CUfunction function(const std::string& name) const;
    CUmodule get() const { return module_; }
    explicit operator bool() const { return module_ != nullptr; }

private:
    void reset() noexcept;
    CUmodule module_ = nullptr;
};

/// A non-blocking stream (no implicit synchronisation with the legacy default stream).
class stream
{
public:
    stream();
    ~stream();
    stream(stream&& other) noexcept;
    stream& operator=(stream&& other) noexcept;
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;

    CUstream get() const { return stream_; }

private:
    void reset() noexcept;
    CUstream stream_ = nullptr;
};

/// An event; timing-enabled by default (flags CU_EVENT_DEFAULT).
class event
{
public:
    explicit event(unsigned flags = CU_EVENT_DEFAULT);
    ~event();
    event(event&& other) noexcept;
    event& operator=(event&& other) noexcept;
    event(const event&) = delete;
    event& operator=(const event&) = delete;

    CUevent get() const { return event_; }
    void record(CUstream s) const;
    /// Milliseconds between two recorded, completed events.
    static float elapsed_ms(const event& start, const event& end);

private:
    void reset() noexcept;
    CUevent event_ = nullptr;
};

/// One integer device attribute.
int device_attribute(CUdevice device, CUdevice_attribute attribute);

/// cuFuncGetAttribute.
int function_attribute(CUfunction function, CUfunction_attribute attribute);

}  // namespace warpsmith::cuda
