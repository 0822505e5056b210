#include "agents/strategies/kernel_features.hpp"

#include "agents/llm/kernel_contract.hpp"
#include "harness/json/lenient.hpp"

#include <boost/regex.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

double device_num(const json::object& d, const char* k, double fallback)
{
    const auto v = lenient::number_at(d, k);
    return v && *v > 0 ? *v : fallback;
}

const char* occupancy_bucket(double occ)
{
    if (occ <= 0)
        return "unknown";
    if (occ < 0.25)
        return "low";
    if (occ < 0.5)
        return "mid";
    return "high";
}

std::int64_t threads_bucket(std::int64_t t)
{
    if (t <= 0)
        return 0;
    if (t <= 128)
        return 128;
    if (t <= 256)
        return 256;
    return 512;
}

}  // namespace

std::string kernel_features::key() const
{
    return "smem=" + std::to_string(shared_memory ? 1 : 0) + " vec=" + std::to_string(vector_width) +
           " rt=" + std::to_string(register_tiling ? 1 : 0) +
           " db=" + std::to_string(double_buffering ? 1 : 0) + " tc=" + std::to_string(tensor_cores ? 1 : 0) +
           " occ=" + occupancy_bucket(occupancy) + " thr=" + std::to_string(threads_bucket(block_threads));
}

int kernel_features::distance(const kernel_features& o) const
{
    return (shared_memory != o.shared_memory) + (vector_width != o.vector_width) +
           (register_tiling != o.register_tiling) + (double_buffering != o.double_buffering) +
           (tensor_cores != o.tensor_cores) +
           (std::string(occupancy_bucket(occupancy)) != occupancy_bucket(o.occupancy)) +
           (threads_bucket(block_threads) != threads_bucket(o.block_threads));
}

json::object kernel_features::to_json() const
{
    return json::object{{"shared_memory", shared_memory},
                        {"vector_width", vector_width},
                        {"register_tiling", register_tiling},
                        {"double_buffering", double_buffering},
                        {"tensor_cores", tensor_cores},
                        {"warp_shuffle", warp_shuffle},
                        {"block_threads", block_threads},
                        {"shared_bytes", shared_bytes},
                        {"registers", registers},
                        {"occupancy", occupancy},
                        {"key", key()}};
}

double estimate_occupancy(std::int64_t threads,
                          int registers,
                          std::int64_t shared_bytes,
                          const json::object& device)
{
    if (threads <= 0)
        return 0;
    const double max_threads_sm = device_num(device, "max_threads_per_sm", 2048);
    const double regs_sm = device_num(device, "registers_per_sm", 65536);
    const double smem_sm = device_num(device, "shared_memory_per_sm_bytes", 233472);
    const double max_blocks = 32;
    const double warps = std::ceil(static_cast<double>(threads) / 32.0);
    double blocks = std::min(max_blocks, std::floor(max_threads_sm / (warps * 32)));
    if (registers > 0)
    {
        const double regs_per_thread = std::ceil(registers / 8.0) * 8;
        blocks = std::min(blocks, std::floor(regs_sm / (regs_per_thread * warps * 32)));
    }
    if (shared_bytes > 0)
        blocks = std::min(blocks, std::floor(smem_sm / (static_cast<double>(shared_bytes) + 1024)));
    if (blocks <= 0)
        return 0;
    return std::min(1.0, blocks * warps * 32 / max_threads_sm);
}

kernel_features extract_features(const candidate& cand,
                                 const resource_usage& res,
                                 const workload& w,
                                 const json::object& device)
{
    kernel_features f;
    // Features are hints for the model: they are read from the first 64 KiB of the source with its
    // comments left out and each run of white space made one character (a newline where the run
    // held one), with bounded repetitions, so that a model's 250 KiB of "float a[" costs no seconds
    // of the event loop for every candidate of every evolve plan.
    constexpr std::size_t read_bytes = 64 * 1024;
    std::string code;
    {
        const std::string stripped = llm::strip_comments(cand.source);
        code.reserve(std::min(stripped.size(), read_bytes));
        for (std::size_t i = 0; i < stripped.size() && code.size() < read_bytes;)
        {
            if (!std::isspace(static_cast<unsigned char>(stripped[i])))
            {
                code += stripped[i++];
                continue;
            }
            bool newline = false;
            for (; i < stripped.size() && std::isspace(static_cast<unsigned char>(stripped[i])); ++i)
                newline = newline || stripped[i] == '\n';
            code += newline ? '\n' : ' ';
        }
    }
    static const boost::regex shared(R"(__shared__)");
    static const boost::regex vec4(R"(\b(float4|int4|uint4|double2|longlong2|make_float4|__half2x2)\b)");
    static const boost::regex vec2(R"(\b(float2|int2|uint2|half2|__half2|__nv_bfloat162|make_float2)\b)");
    static const boost::regex local_array(
        R"((^|[;{}\n])\s*(const\s+)?(float|double|int|unsigned|half|__half|__nv_bfloat16|float4|float2)\s+[A-Za-z_]\w{0,63}\s{0,8}\[[^\]\n]{1,64}\])");
    static const boost::regex stage2(R"(__shared__[^;]{0,256}\[\s*2\s*\])");
    // Stage buffers: async copies, a STAGES/stage name, or a stage index toggled with & 1 / ^= 1.
    static const boost::regex async_copy(
        R"(cp\.async|memcpy_async|__pipeline_|cuda::pipeline|\w{0,32}(STAGES?|[Ss]tages?)|\(\s*\w+\s*&\s*1\s*\)|\^=\s*1\b)");
    static const boost::regex tensor(R"(wmma::|mma\.sync|\bmma_sync\b|wgmma)");
    static const boost::regex shfl(R"(__shfl)");

    // Boost.Regex: no recursion per character (std::regex overflowed the stack on a model answer
    // with a 200 KB run of spaces, in this process); a match too costly to finish leaves the
    // features found so far (they are hints for the model, not checks).
    try
    {
        f.shared_memory = boost::regex_search(code, shared) || res.static_shared_bytes > 0;
        f.vector_width = boost::regex_search(code, vec4) ? 4 : boost::regex_search(code, vec2) ? 2 : 1;
        // Thread-local arrays: declarations at statement start that are not __shared__.
        for (auto it = boost::sregex_iterator(code.begin(), code.end(), local_array);
             it != boost::sregex_iterator();
             ++it)
        {
            const auto line_start = code.rfind('\n', static_cast<std::size_t>(it->position()) + 1);
            const auto line_end = code.find('\n', static_cast<std::size_t>(it->position()) + 1);
            const auto line =
                code.substr(line_start == std::string::npos ? 0 : line_start,
                            line_end == std::string::npos ? std::string::npos : line_end - line_start);
            if (line.find("__shared__") == std::string::npos &&
                line.find("__constant__") == std::string::npos)
            {
                f.register_tiling = true;
                break;
            }
        }
        f.double_buffering = boost::regex_search(code, stage2) || boost::regex_search(code, async_copy);
        if (auto it = cand.defines.find("DB"); it != cand.defines.end())
            f.double_buffering = it->second > 0;
        f.tensor_cores = boost::regex_search(code, tensor);
        f.warp_shuffle = boost::regex_search(code, shfl);
    }
    catch (const std::runtime_error&)
    {
    }
    f.registers = res.registers;

    const workload_case* c = nullptr;
    for (const auto& wc : w.cases)
        if (wc.role == case_role::performance)
        {
            c = &wc;
            break;
        }
    if (!c && !w.cases.empty())
        c = &w.cases.front();
    if (c)
    {
        try
        {
            const auto dims = cand.plan_for(c->name).evaluate(cand.launch_variables(*c));
            f.block_threads = dims.threads_per_block();
            f.shared_bytes =
                dims.shared_bytes > std::numeric_limits<std::int64_t>::max() - res.static_shared_bytes
                    ? std::numeric_limits<std::int64_t>::max()
                    : dims.shared_bytes + res.static_shared_bytes;
            f.shared_memory = f.shared_memory || dims.shared_bytes > 0;
        }
        catch (const std::exception&)
        {
        }
    }
    f.occupancy = estimate_occupancy(f.block_threads, f.registers, f.shared_bytes, device);
    return f;
}

kernel_features extract_features(const evaluated_candidate& c, const workload& w, const json::object& device)
{
    return extract_features(c.cand, c.compile.resources, w, device);
}

}  // namespace warpsmith
