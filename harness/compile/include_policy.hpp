#pragma once

// What a kernel may include (SPEC §3 "Trust rules": model code reaches no host file; docs/hardening.md,
// "Model code reads no host file"). NVRTC resolves a quoted include against the current directory and
// takes absolute paths, so `#include ".env"` would put the API key into the compile log, which goes
// back to the model and into the run directory. A kernel may therefore include only the CUDA
// toolkit's device headers, by name in angle brackets (allowed_toolkit_header); everything else that
// can make the preprocessor open a file is refused before NVRTC sees the source:
//
//   - #include "..." (quoted), #include MACRO (computed), #include <name> for any other name (paths,
//     "..", "//", names outside the list), #include_next, #import, #embed and unknown directives;
//   - __has_include, __has_include_next and __has_embed anywhere (they probe the file system);
//   - _Pragma and __pragma anywhere, and #pragma forms that name files (dependency, include_alias,
//     include, embed, import).
//
// The scan is a preprocessing-token lexer (translation phases 1-3): line splices, comments (a
// directive may hide behind /* */ or continue past a backslash-newline), digraphs (%:), string, raw
// string and character literals, and pp-numbers with digit separators. Where compilers differ
// (trigraphs, a backslash followed by spaces before the newline, a lone carriage return, digit
// separators), the source is scanned once under each reading and refused when any reading finds a
// violation. Directives inside #if 0 are checked too.
//
// A textual check cannot see an identifier built by token pasting (`__has_##include`), so compile
// workers also run inside a file-system sandbox (compile_sandbox.hpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// nullopt when the source obeys the include rule, else one line that names the rule broken and
/// where ("include policy: line 1: quoted #include is refused; include only CUDA toolkit headers
/// by name, e.g. #include <cuda_fp16.h>"). The line never quotes what a refused include names.
std::optional<std::string> check_include_policy(std::string_view source);

/// True for the header names a kernel may include in angle brackets: the toolkit's device headers
/// (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, cuda_fp6.h, cuda_fp4.h, mma.h, cooperative_groups.h,
/// cuda_pipeline.h, cuda_awbarrier.h, vector_types.h, ...) and everything under cooperative_groups/,
/// cuda/ (libcu++: cuda/std/..., cuda/pipeline, cuda/barrier, cuda/ptx) and nv/ (nv/target).
bool allowed_toolkit_header(std::string_view name);

/// The allowed single headers and directory prefixes (ending in '/'), for documentation and tests.
const std::vector<std::string>& allowed_toolkit_headers();

}  // namespace warpsmith
