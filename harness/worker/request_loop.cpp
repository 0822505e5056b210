#include "harness/worker/request_loop.hpp"

#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/compile_thread.hpp"
#include "harness/core/error.hpp"
#include "harness/cuda/cuda_error.hpp"
#include "harness/cuda/driver_api.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/worker/baseline.hpp"
#include "harness/worker/case_store.hpp"
#include "harness/worker/device_info.hpp"
#include "harness/worker/evaluator.hpp"
#include "harness/worker/gpu_session.hpp"
#include "harness/worker/interleaved.hpp"
#include "harness/worker/protocol.hpp"
#include "harness/worker/watchdog.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

std::optional<compile_cache> make_cache(const worker_options& o)
{
    if (o.no_cache)
        return std::nullopt;
    return compile_cache(o.cache_dir ? *o.cache_dir : compile_cache::default_dir());
}

bool is_gpu_op(std::string_view op)
{
    return op == "device_info" || op == "load_workload" || op == "evaluate" || op == "time_interleaved" ||
           op == "baseline";
}

// Copies every field of `fields` into `response` (which already holds id and ok).
void merge(json::object& response, json::object fields)
{
    for (auto& kv : fields)
        response[kv.key()] = std::move(kv.value());
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

}  // namespace

request_loop::request_loop(worker_options options)
    : options_(std::move(options)), compiler_(make_cache(options_))
{
    // A GPU worker keeps its own file access (the driver's devices) and compiles the reference,
    // candidates sent as source and compile requests: on a thread of its own inside the compile
    // sandbox. A compile worker sandboxes the whole process at its first compile instead.
    if (options_.mode == worker_mode::gpu)
        compiler_.compile_on(std::make_shared<compile_thread>(
            compiler_.cache() ? std::optional(compiler_.cache()->dir()) : std::nullopt));
}

request_loop::~request_loop() = default;

gpu_session& request_loop::session()
{
    if (!session_)
    {
        try
        {
            session_ = std::make_unique<gpu_session>(options_.device, compiler_);
        }
        catch (const user_error& e)
        {
            // No driver, no device, or no device with that index: the engine (and the user) get one
            // line; the worker stays up so compile requests and shutdown still work.
            log_warn(e.what());
            throw request_error(error_kind::no_device, e.what());
        }
    }
    return *session_;
}

json::object request_loop::hello()
{
    json::object r{{"protocol", protocol_version},
                   {"mode", options_.mode == worker_mode::gpu ? "gpu" : "compile"},
                   {"worker_version", WARPSMITH_VERSION},
                   {"nvrtc_version", nvrtc_version()}};
    // Whether its compiles run in the file-system sandbox, so that the engine can say when they
    // do not (docs/worker-protocol.md, "hello").
    std::optional<sandbox_outcome> sandbox;
    if (compiler_.thread())
        sandbox = compiler_.thread()->outcome();
    else
    {
        enter_compile_sandbox_if_requested(compiler_.cache() ? std::optional(compiler_.cache()->dir())
                                                             : std::nullopt);
        sandbox = compile_sandbox_outcome();
    }
    r["compile_sandbox"] = sandbox ? json::object{{"status", to_string(sandbox->status)},
                                                  {"abi", sandbox->abi},
                                                  {"detail", sandbox->detail}}
                                   : json::object{{"status", "not requested"}};
    if (options_.mode == worker_mode::gpu)
    {
        gpu_session& s = session();
        r["driver_version"] = s.device().driver_version();
        r["device"] = device_info_json(s.device());
    }
    return r;
}

json::object request_loop::dispatch(const std::string& op, const json::object& request, outcome& result)
{
    if (op == "hello")
        return hello();
    if (op == "shutdown")
    {
        result.exit = true;
        result.exit_code = 0;
        return {};
    }
    if (op == "compile")
    {
        const json_reader r(request, request_location("compile"));
        compile_request creq;
        try
        {
            creq = compile_request::from_json(r.require_object("request"));
        }
        catch (const user_error& e)
        {
            bad_request(std::string("compile: ") + e.what());
        }
        return json::object{{"output", compiler_.compile(creq).to_json()}};
    }
    if (!is_gpu_op(op))
        bad_request("unknown op '" + op + "'");
    if (options_.mode != worker_mode::gpu)
        bad_request("op '" + op +
                    "' needs GPU mode (warpsmith-worker --device K); this worker runs --compile");

    gpu_session& s = session();
    if (op == "device_info")
    {
        const json_reader r(request, request_location("device_info"));
        json::object device = device_info_json(s.device());
        if (r.optional_bool("measure").value_or(false))
            device["measured"] = measure_device(s.device(), s.helpers(), std::chrono::milliseconds(60'000));
        return json::object{{"device", std::move(device)}};
    }
    if (op == "load_workload")
        return s.load_workload(request);
    if (op == "evaluate")
    {
        evaluation e = evaluate(s, request);
        if (e.restart)
        {
            result.exit = true;
            result.exit_code = restart_exit_code;
        }
        return json::object{{"result", e.result.to_json()}};
    }
    if (op == "baseline")
        return run_baseline(s, request);
    return time_interleaved(s, request);
}

request_loop::outcome request_loop::handle_line(std::string_view raw)
{
    outcome result;
    const std::string_view line = trim(raw);
    if (line.empty())
    {
        result.respond = false;
        return result;
    }

    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec)
    {
        result.response =
            error_response(nullptr, error_kind::bad_request, "malformed JSON line: " + ec.message());
        return result;
    }
    if (!v.is_object())
    {
        result.response = error_response(nullptr, error_kind::bad_request, "a request must be a JSON object");
        return result;
    }
    const json::object& request = v.get_object();
    // The envelope of every request ("'id' must be an integer", "'op' is missing"); an answer to a
    // request without a readable id carries a null id.
    json::value id = nullptr;
    std::string op;
    try
    {
        const json_reader r(request, json_location({}, {}, json_style::request));
        if (r.find("id") && r.require("id").is_uint64())
            id = r.require("id");
        else
            id = r.require_int64("id");
        op = r.require_string("op");
    }
    catch (const json_error& e)
    {
        result.response = error_response(id, error_kind::bad_request, e.what());
        return result;
    }

    // Failures that lose the CUDA context: the response says so and the worker exits afterwards.
    // During load_workload only the reference runs, so such a failure is the reference's.
    const error_kind lost_kind = op == "load_workload" ? error_kind::reference_failed : error_kind::internal;
    const auto fail = [&](error_kind kind, const std::string& message, bool restart)
    {
        result.response = error_response(id, kind, message);
        if (restart)
        {
            result.response["worker_restart"] = true;
            result.exit = true;
            result.exit_code = restart_exit_code;
        }
    };
    try
    {
        json::object fields = dispatch(op, request, result);
        result.response = ok_response(id);
        merge(result.response, std::move(fields));
        if (result.exit && result.exit_code == restart_exit_code)
            result.response["worker_restart"] = true;
    }
    catch (const request_error& e)
    {
        fail(e.kind(), e.what(), e.restart());
    }
    catch (const reference_error& e)
    {
        fail(error_kind::reference_failed, std::string("load_workload: ") + e.what(), false);
    }
    catch (const kernel_hang& e)
    {
        fail(lost_kind, op + ": " + e.what() + "; the worker restarts", true);
    }
    catch (const cuda::cuda_error& e)
    {
        if (e.is_sticky())
            fail(
                lost_kind, op + ": " + e.what() + "; the CUDA context is lost and the worker restarts", true);
        else
            fail(error_kind::internal, op + ": " + e.what(), false);
    }
    catch (const user_error& e)
    {
        fail(error_kind::bad_request, e.what(), false);
    }
    catch (const json_error& e)
    {
        // A request field the op read without translating it (each op answers these as bad_request).
        fail(error_kind::bad_request, e.what(), false);
    }
    catch (const std::exception& e)
    {
        fail(error_kind::internal, op + ": " + e.what(), false);
    }
    catch (...)
    {
        fail(error_kind::internal, op + ": unknown exception", false);
    }
    return result;
}

int request_loop::run(std::istream& in, protocol_writer& out)
{
    std::string line;
    while (std::getline(in, line))
    {
        outcome o = handle_line(line);
        if (o.respond && !out.write(o.response))
        {
            log_warn("the protocol stream is closed; exiting");
            if (o.exit_code == restart_exit_code)
                std::_Exit(restart_exit_code);
            return 0;
        }
        if (o.exit && o.exit_code == restart_exit_code)
        {
            // Nothing else may run: destructors and the driver's exit handlers could block on a
            // kernel that never ends, or fail on the poisoned context.
            std::fflush(stderr);
            std::_Exit(restart_exit_code);
        }
        if (o.exit)
            return o.exit_code;
    }
    return 0;
}

}  // namespace warpsmith::worker
