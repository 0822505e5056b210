#pragma once

// Kernel features for the evolve strategy's diversity (SPEC §5 "evolve"), extracted heuristically
// from a candidate's source, launch plan and compile resources (docs/agents.md "Kernel features"):
//
//   shared_memory     __shared__ arrays or dynamic shared memory in the launch plan
//   vector_width      4 for float4/int4/double2-style accesses, 2 for float2/half2, else 1
//   register_tiling   a thread-local array (several outputs per thread), e.g. `float acc[8][8]`
//   double_buffering  a shared array with a leading [2] stage dimension, a stage index, or async
//                     copies (cp.async, memcpy_async, pipelines)
//   tensor_cores      wmma / mma.sync / wgmma
//   warp_shuffle      __shfl_*
//   block_threads     threads per block of the launch plan for the first performance case
//   occupancy         resident threads per SM / max threads per SM, estimated from threads,
//                     registers (allocation granularity 8 per thread), static + dynamic shared
//                     memory (1 KiB reserved per block) and the device limits (H100 defaults when
//                     the device summary lacks them)
//
// The heuristics read text, so they can be fooled; they only steer which parents and directions
// the search explores, never what is valid.

#include "agents/strategy.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace warpsmith
{

struct kernel_features
{
    bool shared_memory = false;
    int vector_width = 1;
    bool register_tiling = false;
    bool double_buffering = false;
    bool tensor_cores = false;
    bool warp_shuffle = false;
    std::int64_t block_threads = 0;
    std::int64_t shared_bytes = 0;  ///< static + dynamic, for the first performance case.
    int registers = 0;
    double occupancy = 0;  ///< 0..1, 0 when unknown.

    /// A coarse bucket key: "smem=1 vec=4 rt=1 db=0 tc=0 occ=mid thr=256".
    std::string key() const;
    /// Number of differing axes of the key (0..7).
    int distance(const kernel_features& o) const;
    boost::json::object to_json() const;
};

kernel_features extract_features(const candidate& cand,
                                 const resource_usage& res,
                                 const workload& w,
                                 const boost::json::object& device);
kernel_features extract_features(const evaluated_candidate& c,
                                 const workload& w,
                                 const boost::json::object& device);

/// Occupancy (0..1) from threads per block, registers per thread and shared bytes per block.
double estimate_occupancy(std::int64_t threads,
                          int registers,
                          std::int64_t shared_bytes,
                          const boost::json::object& device);

}  // namespace warpsmith
