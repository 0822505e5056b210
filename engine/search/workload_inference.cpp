#include "engine/search/workload_inference.hpp"

#include "agents/llm/inference.hpp"
#include "agents/llm/llm_records.hpp"
#include "engine/executors/compile_pool.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/json/lenient.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <cstdio>
#include <exception>
#include <optional>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

inferred_workload infer_workload_parts(const workload_inference_options& o,
                                       json::object given,
                                       const fs::path& dir)
{
    asio::io_context ioc;
    const auto& llm = o.model;
    auto bundle = make_model_client(llm, ioc.get_executor());  // a missing key fails before the claim
    auto run = run_directory::create(o.results);
    std::fprintf(stderr, "run %s: inferring the workload from --description\n", run.path().c_str());
    llm::record_writer records(run.llm_dir(), bundle.redact);
    bundle.client->set_observer(records.observer());
    compile_pool pool(ioc, o.backend.launch, o.backend.compile);
    gpu_executor gpu(ioc, o.backend.launch, o.backend.devices.front(), o.backend.gpu);
    llm::inference_request request{o.description, std::move(given), dir};
    llm::inference_settings settings;
    settings.stream = !llm.no_stream;
    settings.reasoning_effort = llm.effective_reasoning_effort();
    const auto& limits = o.limits;
    token_usage used;
    llm::usage_reporter report = [&](const token_usage& u)
    {
        used += u;
        return !(limits.tokens && budget_tracker::counted_tokens(used) >= *limits.tokens) &&
               !(limits.cost_usd && used.cost_usd >= *limits.cost_usd);
    };
    const auto hidden_seed = o.hidden_seed;
    llm::compile_function compile = [&pool](compile_request r) -> asio::awaitable<compile_output>
    { co_return co_await pool.compile(std::move(r)); };
    llm::load_function load = [&gpu, hidden_seed](const workload& w) -> asio::awaitable<json::object>
    { co_return co_await gpu.load(w, hidden_seed); };
    std::optional<llm::inference_result> result;
    std::exception_ptr error;
    auto body = [&]() -> asio::awaitable<void>
    {
        try
        {
            const auto hello = co_await gpu.start();
            if (auto arch = lenient::string_at(lenient::object_at(hello, "device"), "arch"))
                settings.arch = std::move(*arch);
            result = co_await llm::infer_workload(
                *bundle.client, std::move(request), compile, load, report, &records, settings);
        }
        catch (...)
        {
            error = std::current_exception();
        }
        co_await gpu.stop();
        co_await pool.stop();
    };
    asio::co_spawn(ioc, body(), asio::detached);
    ioc.run();
    if (error)
        std::rethrow_exception(error);
    json::array inferred;
    for (const auto& part : result->inferred)
        inferred.emplace_back(part);
    json::array recs;
    for (const auto& r : result->records)
        recs.emplace_back(r);
    run.write_json("workload/inference.json",
                   json::object{{"description", o.description},
                                {"inferred", std::move(inferred)},
                                {"attempts", result->attempts},
                                {"checks", result->checks},
                                {"llm_records", std::move(recs)},
                                {"usage", to_json(result->usage)}});
    return {std::move(result->workload_json), std::move(run)};
}

}  // namespace warpsmith
