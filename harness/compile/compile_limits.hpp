#pragma once

// What one compile may cost the machine. A kernel is model output: `__device__ char t[1 << 30] =
// {1};` is a valid program whose cubin carries a gigabyte of initialised data, and NVRTC needs
// about fourteen times the cubin's size in memory to build it (a 256 MiB array: 3.5 GB and a
// minute on one core). Sixteen compile workers doing that at once would take the host down, so a
// compile worker runs under a memory limit (RLIMIT_DATA: NVRTC's LLVM stops with "out of memory"
// and the compile fails), and a cubin above max_cubin_bytes is refused in every compile path
// (docs/hardening.md, "What a compile may cost").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// The largest cubin any compile returns: 32 MiB, far above any kernel's code (a tuned SGEMM is
/// about 60 KiB); only initialised __device__ data gets near it. Its base64 (43 MiB) also fits a
/// compile worker's response line (64 MiB, engine/executors/worker_process.cpp).
inline constexpr std::size_t default_max_cubin_bytes = std::size_t{32} << 20;

/// The longest compile log kept: 1 MiB. An exponential typedef and one error make NVRTC write
/// 8 x 2^N bytes (512 MiB from 285 bytes of source), which would otherwise go to the compile cache,
/// the journal, compile.log and the model's prompt.
inline constexpr std::size_t max_compile_log_bytes = std::size_t{1} << 20;

/// The memory limit of a compile worker, in MiB (a compile of the SGEMM workload needs under
/// 100 MiB; the limit leaves room for template-heavy kernels).
inline constexpr std::uint64_t default_compile_memory_mib = 2048;

/// A compile log cut to at most `limit` bytes (plus one line saying how much was left out): its
/// first three quarters and its last quarter, so that both the first errors and ptxas's closing
/// resource report survive. Shorter logs come back unchanged. Cut after redaction, so that no
/// key is cut in two where redaction could no longer see it.
std::string bounded_compile_log(std::string log, std::size_t limit = max_compile_log_bytes);

/// The deepest nesting of braces, parentheses or brackets a source may have before NVRTC sees it:
/// NVRTC's parser recurses per level, and 10,000 nested `extern "C" {` (120 KB) crashed a process
/// that compiled in-process (SIGSEGV inside libnvrtc), on every --resume too.
inline constexpr int max_source_nesting = 256;

/// nullopt, or one line saying that the source nests deeper than `most` (comments and string and
/// character literals are not counted).
std::optional<std::string> check_source_nesting(std::string_view source, int most = max_source_nesting);

/// The refusal of a cubin of `bytes` above `limit` (one line, names the limit and the usual cause).
std::string cubin_too_large(std::size_t bytes, std::size_t limit);

/// Limits the calling process's data segment (RLIMIT_DATA: heap and private writable mappings) to
/// `limit_mib` MiB, soft and hard, so that neither it nor what it starts can raise it again. Returns the
/// problem when the kernel refuses, nullopt on success.
std::optional<std::string> limit_process_memory(std::uint64_t limit_mib);

}  // namespace warpsmith
