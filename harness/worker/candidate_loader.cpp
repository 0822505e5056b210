#include "harness/worker/candidate_loader.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/elapsed.hpp"
#include "harness/core/error.hpp"
#include "harness/core/utf8_text.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/worker/protocol.hpp"

#include <boost/json.hpp>

#include <chrono>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

std::string log_excerpt(const std::string& log)
{
    constexpr std::size_t max_chars = 2000;
    if (log.size() <= max_chars)
        return log;
    return std::string(utf8_prefix(log, max_chars)) + "\n[... log truncated]";
}

}  // namespace

prepared_candidate prepare_candidate(const json::value& candidate_json,
                                     const std::string& where,
                                     const nvrtc_compiler& compiler,
                                     const std::string& arch,
                                     const signature& sig)
{
    if (!candidate_json.is_object())
        bad_request(where + " must be an object");
    const json::object& obj = candidate_json.get_object();
    prepared_candidate p;
    try
    {
        p.cand = candidate::from_json(candidate_json, where);
    }
    catch (const user_error& e)
    {
        bad_request(e.what());
    }

    std::string cubin;
    // Whether the kernel's code addresses local memory: said by whoever compiled the cubin (the
    // engine's compile pool), taken from the compile here; absent means unknown, which wipes.
    bool local_memory = true;
    std::optional<std::string> b64;
    try
    {
        const json_reader r(obj, json_location(where, {}, json_style::request));
        local_memory = r.optional_bool("local_memory").value_or(true);
        b64 = r.optional_string("cubin_b64");
    }
    catch (const json_error& e)
    {
        bad_request(e.what());
    }
    if (b64)
    {
        const auto t0 = std::chrono::steady_clock::now();
        try
        {
            cubin = base64_decode(*b64);
        }
        catch (const user_error& e)
        {
            bad_request(where + ": 'cubin_b64': " + e.what());
        }
        p.load_ms += ms_since(t0);
    }
    else
    {
        if (p.cand.source.empty())
            bad_request(where + " has neither 'cubin_b64' nor 'source'");
        compile_request request;
        request.source = p.cand.source;
        request.entry = p.cand.entry;
        request.options = define_options(p.cand.defines);
        request.options.insert(request.options.end(), p.cand.options.begin(), p.cand.options.end());
        request.arch = arch;
        const auto t0 = std::chrono::steady_clock::now();
        compile_output out = compiler.compile(request);
        p.compile_ms = ms_since(t0);
        p.compiled_here = true;
        p.cache_hit = out.cache_hit;
        if (!out.compiled)
        {
            p.fail = failure{failure_kind::compile_error, "", out.error + "\n" + log_excerpt(out.log)};
            return p;
        }
        cubin = std::move(out.cubin);
        local_memory = out.local_memory;
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::string why;
    bool image_rejected = false;
    p.kernel = load_kernel(cubin, p.cand.entry, why, &image_rejected);
    p.load_ms += ms_since(t0);
    if (!p.kernel)
        p.fail =
            failure{image_rejected ? failure_kind::compile_error : failure_kind::entry_not_found, "", why};
    else if (const std::string refused = refuse_local_frame(*p.kernel); !refused.empty())
    {
        p.fail = failure{failure_kind::compile_error, "", refused};
        p.kernel.reset();
    }
    else if (const std::string mismatch = parameter_mismatch(*p.kernel, sig); !mismatch.empty())
    {
        p.fail = failure{failure_kind::bad_launch,
                         "",
                         "the kernel's parameters do not match the workload's signature: " + mismatch};
        p.kernel.reset();
    }
    else
        // A frame counts as local memory too: its call-argument and return slots are stored by
        // PTX the kernel's author writes (an inline-asm call can pass a 4 KiB .param argument it
        // never stored), not only by ptxas, which would reload a spill only after its store.
        p.kernel->local_memory = local_memory || p.kernel->local_bytes > 0;
    return p;
}

}  // namespace warpsmith::worker
