#include "agents/llm/prompts.hpp"

namespace warpsmith::llm::prompts
{

std::string_view system_role()
{
    return R"~(You are an expert CUDA performance engineer. You write CUDA C++ kernels for one NVIDIA GPU and
make them as fast as possible while they stay exactly correct. Every kernel you propose is compiled
with NVRTC, validated against a reference kernel on every input case (including inputs you never
see) and then timed with CUDA events (L2 cache flushed before each measured launch). The score is
the geometric mean of the median times of the performance cases; correctness cases must pass but
are not timed. An invalid kernel scores nothing, so never trade correctness for speed.)~";
}

std::string_view contract()
{
    return R"~(The contract:
- Device code only: no main(), no host functions, no cudaMalloc/cudaMemcpy or other runtime API
  calls. The harness allocates the buffers, generates the inputs, and launches your kernel.
- The entry point is one `extern "C" __global__` function with exactly the parameters of the
  signature, in that order, with those types. Helper __device__ functions, templates instantiated
  from the entry, __constant__ data and #define macros are fine.
- No dynamic parallelism (no kernel launches from device code), no cooperative launches, no
  reliance on state kept between launches (the kernel is launched many times).
- The launch plan (grid, block, dynamic shared memory) is part of your answer: integer expressions
  over the case values (and your defines) using + - * / %, parentheses, ceil_div(a,b), min, max.
  Dynamic shared memory above 48 KiB is allowed (the harness opts in).
- Every output element must be written; inputs must not be modified; results must be within the
  workload's tolerance of the reference for every case, odd sizes included.
- Compile options allowed: --use_fast_math, --maxrregcount=N, --extra-device-vectorization, and
  defines (-DNAME=VALUE, given as "defines").)~";
}

std::string_view answer_json()
{
    return R"~(Answer with exactly one JSON object (no prose around it) with these fields:
- "rationale": what you changed and why it should be faster (two to five sentences);
- "kernel_source": the complete CUDA source, self-contained;
- "entry": the name of the extern "C" __global__ function;
- "launch": {"grid": [x, y, z], "block": [x, y, z], "shared_bytes": expr}, each entry an integer
  expression as a string, e.g. "ceil_div(N,128)";
- "per_case_overrides": [{"case": NAME, "launch": {...}}] for cases that need another launch plan
  (usually []);
- "compile_options": e.g. ["--use_fast_math"] or [];
- "defines": [{"name": "BM", "value": 128}] or [] (defines are also visible to launch expressions).)~";
}

std::string_view answer_fenced()
{
    return R"~(Answer with two fenced blocks and nothing else that matters:
1. a ```cuda block with the complete CUDA source;
2. a ```json block with {"entry": NAME, "launch": {"grid": [x, y, z], "block": [x, y, z],
   "shared_bytes": expr}, "rationale": "...", "per_case_overrides": [], "compile_options": [],
   "defines": []}. Launch entries are integer expressions as strings, e.g. "ceil_div(N,128)".
Example:
```cuda
extern "C" __global__ void scale(int n, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
```
```json
{"entry": "scale", "launch": {"grid": ["ceil_div(n,256)", "1", "1"], "block": ["256", "1", "1"],
 "shared_bytes": "0"}, "rationale": "One thread per element.", "per_case_overrides": [],
 "compile_options": [], "defines": []}
```)~";
}

std::string_view tools_note()
{
    return R"~(Tools: `compile` checks that a kernel compiles and shows its registers, spills and shared memory
(it does not time anything); `history` shows any earlier candidate by id; `gpu_properties` gives the
device limits. Use them sparingly (a few calls at most), then answer.)~";
}

std::string_view task_start()
{
    return R"~(Task: propose a kernel that is faster than the starting point below while staying correct on
every case. Think about the memory traffic and the arithmetic intensity of the workload first,
then choose a tiling and launch plan that suit this GPU.)~";
}

std::string_view task_improve()
{
    return R"~(Task: propose a faster kernel, derived from the parent below (it may be the current best). Make
one or two deliberate changes with a clear performance reason (tiling, vectorized or coalesced
memory access, shared-memory staging, register blocking, occupancy, unrolling, launch shape), not
a rewrite for its own sake. Keep everything that made the parent correct.)~";
}

std::string_view task_repair()
{
    return R"~(Task: your previous candidate below was invalid. Read the failure carefully (compile log,
mismatch summary or launch error), fix the cause, and propose the corrected kernel. Keep the
performance idea if it is sound; if it cannot be made correct, fall back to a safer variant.)~";
}

std::string_view task_crossover()
{
    return R"~(Task: combine the strengths of the two valid parents below into one kernel that should be faster
than both: take the better idea from each (for example one's tiling with the other's memory
access pattern or launch shape). Explain in the rationale what you took from which parent.)~";
}

std::string_view answer_repair()
{
    return R"~(Your answer could not be used:
{{problems}}
Answer again with the complete proposal, fixing exactly these problems. {{format}})~";
}

std::string_view inference_system()
{
    return R"~(You turn a one-line description of a GPU computation into a precise, testable workload for a
CUDA kernel optimizer: a kernel signature, input cases, a simple and obviously correct reference
kernel, and an initial kernel to start optimizing from. The reference defines correctness: write it
in the most straightforward way (one thread per output element, loops in the obvious order, wider
accumulation such as double where it helps accuracy), never clever. Kernels are device code only
with an extern "C" __global__ entry; the harness generates the inputs (uniform in [-1, 1] for
floats), allocates the buffers and launches the kernels with the launch plans you give.)~";
}

std::string_view inference_task()
{
    return R"~(Description: {{description}}

Already given (keep exactly as they are): {{given}}
To infer: {{needed}}

Answer with one JSON object:
- "name": a short identifier for the workload;
- "signature": {"entry": NAME, "params": [{"name", "kind": "scalar"|"buffer", "type": one of
  float16, bfloat16, float32, float64, int8, uint8, int16, int32, uint32, int64, uint64,
  "dir": "in"|"out"|"inout" (buffers; "" for scalars), "count": an integer expression over the
  scalar parameters (buffers; "" for scalars)}]};
- "tolerance": {"rtol": number, "atol": number}, suited to the type and the accumulation length;
- "cases": [{"name", "role": "correctness"|"performance", "values": [{"name", "value"}]}] with
  at least two correctness cases of odd, non-power-of-two sizes (e.g. 37, 61, 129) and at least one
  performance case large enough to keep an H100-class GPU busy for at least a few hundred
  microseconds; every integer scalar parameter needs a value in every case;
- "reference_source": the reference kernel, entry named as in the signature;
- "launch": the reference's launch plan {"grid", "block", "shared_bytes"} (expressions as strings);
- "initial_source" and "initial_launch": a reasonable first kernel with the same signature and
  entry name (it may equal the reference).)~";
}

std::string_view inference_repair()
{
    return R"~(The workload could not be used:
{{problems}}
Answer again with the complete JSON object, fixing exactly these problems.)~";
}

std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values)
{
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size())
    {
        const auto open = text.find("{{", pos);
        if (open == std::string_view::npos)
        {
            out.append(text.substr(pos));
            break;
        }
        const auto close = text.find("}}", open + 2);
        if (close == std::string_view::npos)
        {
            out.append(text.substr(pos));
            break;
        }
        out.append(text.substr(pos, open - pos));
        const std::string key(text.substr(open + 2, close - open - 2));
        if (auto it = values.find(key); it != values.end())
            out += it->second;
        else
            out.append(text.substr(open, close + 2 - open));
        pos = close + 2;
    }
    return out;
}

}  // namespace warpsmith::llm::prompts
