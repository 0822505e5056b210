#include "engine/cli/eval_session.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/array.hpp>

#include <random>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;

namespace
{

protocol::evaluation_result compile_failure_result(const compile_output& c)
{
    std::string message = c.error.empty() ? "did not compile" : c.error;
    // The first lines of the log name the error; the full log is in result.json.
    if (!c.log.empty())
        message += "\n" + c.log.substr(0, 2000);
    return protocol::evaluation_result::invalid("compile_error", std::move(message));
}

}  // namespace

bool kernel_run::valid() const
{
    return gpu.result.valid();
}

json::object compile_summary(const compile_output& c)
{
    json::value v = c.to_json();
    json::object o = std::move(v.get_object());
    o.erase("cubin_b64");
    o["cubin_bytes"] = c.cubin.size();
    return o;
}

std::uint64_t random_hidden_seed()
{
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

struct eval_session::impl
{
    impl(asio::io_context& ioc, session_options o)
        : opts(std::move(o)),
          gpu(ioc, opts.launch, opts.device, executor_options(opts)),
          pool(ioc, worker_launch{}, pool_options(opts))
    {
    }

    static gpu_executor_options executor_options(const session_options& o)
    {
        gpu_executor_options g;
        g.launch_timeout = o.launch_timeout;
        return g;
    }

    static compile_pool_options pool_options(const session_options& o)
    {
        compile_pool_options p;
        p.workers = 1;
        p.in_process = true;
        p.use_cache = o.use_cache;
        return p;
    }

    session_options opts;
    gpu_executor gpu;
    compile_pool pool;
    std::string arch;
};

eval_session::eval_session(asio::io_context& ioc, session_options opts)
    : impl_(std::make_unique<impl>(ioc, std::move(opts)))
{
}

eval_session::~eval_session() = default;

asio::awaitable<void> eval_session::start()
{
    auto& d = *impl_;
    json::object hello = co_await d.gpu.start();
    if (d.opts.arch)
        d.arch = *d.opts.arch;
    else if (auto arch = lenient::string_at(lenient::object_at(hello, "device"), "arch"))
        d.arch = std::move(*arch);
    else
        throw user_error("gpu" + std::to_string(d.opts.device) +
                         ": the worker did not report the device architecture; give --arch");
}

asio::awaitable<json::object> eval_session::load(const workload& w, std::uint64_t hidden_seed)
{
    co_return co_await impl_->gpu.load(w, hidden_seed);
}

asio::awaitable<kernel_run> eval_session::run(std::string name,
                                              candidate cand,
                                              timing_options timing,
                                              std::vector<std::string> cases,
                                              bool validate_only)
{
    auto& d = *impl_;
    kernel_run out;
    out.name = name;
    out.cand = cand;
    out.gpu.device = d.opts.device;
    // The request a search makes for the same candidate (compile_request.hpp): one cache entry.
    out.compile = co_await d.pool.compile(compile_request_for(cand, d.arch));
    if (!out.compile.compiled)
    {
        out.gpu.result = compile_failure_result(out.compile);
        co_return out;
    }
    evaluate_request req;
    req.name = name;
    req.cand = std::move(cand);
    req.cubin = out.compile.cubin;
    req.local_memory = out.compile.local_memory;
    req.timing = std::move(timing);
    req.validate_only = validate_only;
    req.cases = std::move(cases);
    out.gpu = co_await d.gpu.evaluate(std::move(req));
    co_return out;
}

asio::awaitable<void> eval_session::stop()
{
    co_await impl_->pool.stop();
    co_await impl_->gpu.stop();
}

const std::string& eval_session::arch() const
{
    return impl_->arch;
}

const json::object& eval_session::hello() const
{
    return impl_->gpu.hello();
}

json::object result_document(const std::string& command,
                             const workload& w,
                             const kernel_run& cand,
                             const kernel_run* reference,
                             const kernel_run* initial,
                             const eval_report& report,
                             const timing_options& timing,
                             std::uint64_t hidden_seed,
                             const json::object& hello)
{
    auto kernel_part = [](const kernel_run& k)
    {
        json::object o;
        o["name"] = k.name;
        o["compile"] = compile_summary(k.compile);
        o["result"] = k.gpu.result.to_json();
        return o;
    };
    json::object doc;
    doc["format"] = "warpsmith-eval-result";
    doc["version"] = 1;
    doc["tool_version"] = WARPSMITH_VERSION;
    doc["command"] = command;
    doc["workload"] = w.name;
    doc["name"] = cand.name;
    doc["status"] = report.status;
    doc["candidate"] = cand.cand.to_json();
    doc["compile"] = compile_summary(cand.compile);
    doc["result"] = cand.gpu.result.to_json();
    doc["reference"] = reference ? json::value(kernel_part(*reference)) : json::value(nullptr);
    doc["initial"] = initial ? json::value(kernel_part(*initial)) : json::value(nullptr);
    doc["speedup"] = report.speedup_json();
    doc["timing"] = timing.to_json();
    doc["hidden_seed"] = hidden_seed;
    json::object worker;
    worker["restarted"] = cand.gpu.worker_restarted;
    worker["restart_reason"] = cand.gpu.restart_reason;
    worker["busy_ms"] = cand.gpu.busy_ms;
    doc["worker"] = std::move(worker);
    const json::value* device = lenient::value_at(hello, "device");
    doc["device"] = device ? *device : json::value(nullptr);
    json::object env;
    if (cand.gpu.result.environment)
        env = cand.gpu.result.environment->to_json();
    for (const char* k : {"worker_version", "nvrtc_version", "driver_version"})
        if (const json::value* v = lenient::value_at(hello, k); v && !env.contains(k))
            env[k] = *v;
    doc["environment"] = std::move(env);
    return doc;
}

}  // namespace warpsmith
