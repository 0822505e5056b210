#pragma once

// The contract a candidate's source must keep (SPEC §2, §5 "Feedback": device code only, an
// extern "C" entry, no dynamic parallelism, no host code), checked heuristically on the text before
// anything is compiled, so that a model gets a precise reason instead of a linker-level surprise.
// NVRTC and the cubin's symbol table remain the final judges (compile_output::entries).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::llm
{

/// The source with comments replaced by spaces (string and character literals kept), line
/// structure preserved.
std::string strip_comments(std::string_view source);

/// The largest kernel source a model may propose or compile through the tool: 256 KiB is far
/// beyond any hand-written kernel, and every source is copied into prompts, requests and the run
/// directory (a 20 MB comment-padded kernel made 221 MB per candidate).
inline constexpr std::size_t max_kernel_source_bytes = 256 * 1024;

/// The most defines, and the most compile options, one proposal or compile tool call may list.
inline constexpr std::size_t max_listed_options = 64;

/// One line when source is above max_kernel_source_bytes.
std::optional<std::string> kernel_source_too_large(std::string_view source);

/// Problems with the source, each one sentence; empty when none is found (a source above
/// max_kernel_source_bytes gets that problem alone, before any scan):
///  * no `__global__` function named `entry`, or it is not declared extern "C" (neither in its
///    declaration nor inside an extern "C" { } block);
///  * a kernel launch (`<<<`) inside the source (dynamic parallelism, or host code);
///  * host code: `main`, or CUDA runtime host API calls (cudaMalloc, cudaMemcpy, cudaFree,
///    cudaDeviceSynchronize, cudaLaunchKernel, cudaStreamCreate, cudaGraph...).
std::vector<std::string> check_kernel_contract(std::string_view source, std::string_view entry);

/// The names of every extern "C" __global__ function found in the source (best effort).
std::vector<std::string> find_kernel_entries(std::string_view source);

}  // namespace warpsmith::llm
