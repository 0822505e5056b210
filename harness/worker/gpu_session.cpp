#include "harness/worker/gpu_session.hpp"

#include "harness/core/defaults.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json.hpp>

namespace warpsmith::worker
{

namespace json = boost::json;

gpu_session::gpu_session(int ordinal, const nvrtc_compiler& compiler)
    : compiler_(compiler),
      device_(ordinal),
      scrubber_(device_.limits().l2_bytes),
      rng_(std::random_device{}())
{
    const compile_request request = helper_kernels_request(device_.arch());
    compile_output helpers;
    try
    {
        helpers = compiler_.compile(request);
    }
    catch (const user_error& e)
    {
        // An unusable cache directory must not take the GPU down with it: compile without it.
        log_warn(std::string("compile cache unusable for the helper kernels (") + e.what() +
                 "); compiling without it");
        helpers = nvrtc_compiler().compile(request);
    }
    if (!helpers.compiled)
        throw std::runtime_error("the worker's helper kernels do not compile for " + device_.arch() + ": " +
                                 helpers.error + "\n" + helpers.log);
    log_debug(std::string("helper kernels ") + (helpers.cache_hit ? "from the compile cache" : "compiled") +
              " for " + device_.arch());
    helpers_ = std::make_unique<helper_kernels>(
        helpers.cubin, device_.limits().sm_count, device_.limits().shared_per_block_optin);
    hygiene_ = std::make_unique<launch_hygiene>(compiler_, device_);
    scrubber_.set_hygiene(hygiene_.get());
}

case_store& gpu_session::store()
{
    if (!store_)
        throw request_error(error_kind::no_workload, "no workload is loaded (send load_workload first)");
    return *store_;
}

json::object gpu_session::load_workload(const json::object& request)
try
{
    const auto t0 = std::chrono::steady_clock::now();
    const json_reader r(request, request_location("load_workload"));
    const json::object& wjson = r.require_object("workload");
    const std::uint64_t hidden_seed = r.optional_uint64("hidden_seed").value_or(std::random_device{}());
    const auto timeout = std::chrono::milliseconds(
        r.optional_int64("launch_timeout_ms", {1, 86'400'000}).value_or(default_launch_timeout_ms));

    // Parse before freeing the old workload: a malformed request leaves the loaded one in place.
    workload w = [&]
    {
        try
        {
            return workload::from_json(wjson, std::filesystem::current_path(), "load_workload.workload");
        }
        catch (const user_error& e)
        {
            bad_request(e.what());
        }
    }();

    store_.reset();
    store_ = std::make_unique<case_store>(device_, *helpers_, compiler_, std::move(w), hidden_seed, timeout);
    json::object response = store_->response();
    response["load_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return response;
}
catch (const json_error& e)
{
    bad_request(e.what());
}

protocol::environment_info gpu_session::environment() const
{
    protocol::environment_info e;
    e.gpu = device_.name();
    e.arch = device_.arch();
    e.driver_version = device_.driver_version();
    e.nvrtc_version = nvrtc_version();
    e.worker_version = WARPSMITH_VERSION;
    return e;
}

}  // namespace warpsmith::worker
