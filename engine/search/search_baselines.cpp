// The baselines of a search: the reference and the initial kernel on every GPU, and the vendor
// libraries (cuBLAS) timed once per run (docs/engine.md).

#include "engine/search/search_engine_impl.hpp"
#include "harness/json/json_number.hpp"

namespace warpsmith
{

using namespace search_detail;

/// The reference and the initial kernel on one GPU. Baselines run before the search loop starts
/// (and confirmation after it ends), so they need no GPU assignment from the pool.
asio::awaitable<void> search_engine::impl::baseline_on_gpu(int gpu,
                                                           std::string cubin_ref,
                                                           bool ref_local_memory,
                                                           std::optional<std::string> cubin_init,
                                                           bool init_local_memory,
                                                           std::optional<candidate> init_cand)
{
    evaluate_request ref_req;
    ref_req.name = "reference";
    ref_req.cand = candidate::from_kernel(work_.reference);
    ref_req.cubin = std::move(cubin_ref);
    ref_req.local_memory = ref_local_memory;
    ref_req.timing = opts_.timing;
    ref_req.session_baseline = true;
    const auto ref_eval = co_await backend_.evaluate(gpu, std::move(ref_req));
    record_baseline("reference", gpu, ref_eval, ref_.at(gpu));
    if (!ref_[gpu].valid)
    {
        auto [kind, message] = failure_of(ref_eval.result);
        throw user_error("the reference fails its own validation on GPU " + std::to_string(gpu) + ": " +
                         kind + (message.empty() ? "" : ": " + message));
    }
    if (cubin_init && init_cand)
    {
        evaluate_request init_req;
        init_req.name = "initial";
        init_req.cand = *init_cand;
        init_req.cubin = std::move(*cubin_init);
        init_req.local_memory = init_local_memory;
        init_req.timing = opts_.timing;
        init_req.session_baseline = true;
        const auto init_eval = co_await backend_.evaluate(gpu, std::move(init_req));
        record_baseline("initial", gpu, init_eval, init_.at(gpu));
    }
}

void search_engine::impl::record_baseline(const std::string& key,
                                          int gpu,
                                          const gpu_evaluation& ev,
                                          kernel_baseline& out)
{
    out.valid = ev.result.valid();
    out.medians = out.valid ? ev.result.performance_medians() : case_medians{};
    out.score = score_of(out.medians);
    json::value failure = nullptr;
    if (!out.valid)
    {
        auto [kind, message] = failure_of(ev.result);
        failure = json::object{{"kind", kind}, {"message", message}};
    }
    journal(json::object{{"event", "baseline"},
                         {"key", key},
                         {"gpu", gpu},
                         {"valid", out.valid},
                         {"failure", std::move(failure)},
                         {"score_us", opt_json(out.score)},
                         {"case_median_us", medians_json(out.medians)},
                         {"busy_ms", ev.busy_ms},
                         {"result", ev.result.to_json()}});
}

asio::awaitable<void> search_engine::impl::evaluate_baselines()
{
    const int n = backend_.gpu_count();
    ref_.assign(n, kernel_baseline{});
    init_.assign(n, kernel_baseline{});
    auto ref_req = compile_request_for(candidate::from_kernel(work_.reference), arch_);
    auto ref_out = co_await backend_.compile(std::move(ref_req));
    if (!ref_out.compiled)
        throw user_error("the reference kernel does not compile: " + ref_out.error);
    std::optional<std::string> init_cubin;
    bool init_local_memory = true;
    std::optional<candidate> init_cand;
    if (work_.initial)
    {
        init_cand = candidate::from_kernel(*work_.initial);
        auto init_req = compile_request_for(*init_cand, arch_);
        auto init_out = co_await backend_.compile(std::move(init_req));
        if (init_out.compiled)
        {
            init_cubin = std::move(init_out.cubin);
            init_local_memory = init_out.local_memory;
        }
        else
        {
            log_warn("the initial kernel does not compile: " + init_out.error);
            journal(json::object{
                {"event", "baseline"},
                {"key", "initial"},
                {"gpu", -1},
                {"valid", false},
                {"failure", json::object{{"kind", "compile_error"}, {"message", init_out.error}}},
                {"score_us", nullptr},
                {"case_median_us", json::object{}},
                {"result", nullptr}});
        }
    }
    // One task per GPU, all at once: each holds its GPU for the reference and initial kernel.
    auto ex = co_await asio::this_coro::executor;
    using op_type = decltype(asio::co_spawn(
        ex, baseline_on_gpu(0, std::string(), true, std::nullopt, true, std::nullopt), asio::deferred));
    std::vector<op_type> ops;
    ops.reserve(static_cast<std::size_t>(n));
    for (int g = 0; g < n; ++g)
        ops.push_back(asio::co_spawn(
            ex,
            baseline_on_gpu(g, ref_out.cubin, ref_out.local_memory, init_cubin, init_local_memory, init_cand),
            asio::deferred));
    auto group = asio::experimental::make_parallel_group(std::move(ops));
    auto [order, errors] = co_await group.async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    (void)order;
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

/// The summary key of a vendor baseline: its name for FP32, name_tf32 for TF32.
std::string search_engine::impl::vendor_key(const baseline_spec& spec, std::string_view math)
{
    return math == "fp32" ? spec.name : spec.name + "_" + std::string(math);
}

/// Every baseline the workload declares, in FP32 and TF32, on GPU 0 (where the reference that
/// the summary compares with was timed), before the search starts.
asio::awaitable<void> search_engine::impl::evaluate_vendor_baselines()
{
    static constexpr const char* maths[] = {"fp32", "tf32"};
    for (const auto& spec : work_.baselines)
    {
        for (const char* math : maths)
        {
            const std::string key = vendor_key(spec, math);
            if (vendor_.count(key))
                continue;
            baseline_request req;
            req.name = spec.name;
            req.kind = spec.kind;
            req.math = math;
            req.timing = opts_.timing;
            baseline_outcome out;
            std::string error;
            try
            {
                out = co_await backend_.baseline(0, std::move(req));
            }
            catch (const std::exception& e)
            {
                error = e.what();
            }
            if (!error.empty())
            {
                out.error_kind = "error";
                out.message = error;
            }
            record_vendor_baseline(key, spec, math, out);
        }
    }
}

void search_engine::impl::record_vendor_baseline(const std::string& key,
                                                 const baseline_spec& spec,
                                                 const std::string& math,
                                                 const baseline_outcome& out)
{
    json::object ev{{"event", "vendor_baseline"},
                    {"key", key},
                    {"name", spec.name},
                    {"kind", spec.kind},
                    {"math", math},
                    {"gpu", 0},
                    {"available", out.available()},
                    {"busy_ms", out.busy_ms}};
    if (out.baseline)
    {
        const protocol::baseline_result& b = *out.baseline;
        json::object medians;
        for (const auto& [case_name, us] : b.case_median_us)
            medians[case_name] = json_number(us);
        ev["case_median_us"] = std::move(medians);
        ev["score_us"] = b.score_us ? json_number(*b.score_us) : json::value(nullptr);
        ev["within_tolerance"] = b.within_tolerance;
        ev["max_abs_error"] = json_number(b.max_abs_error);
        ev["max_rel_error"] = json_number(b.max_rel_error);
        ev["baseline"] = b.to_json();
        char score[64] = "no timed case";
        if (b.score_us)
            std::snprintf(score, sizeof score, "%.2f us", *b.score_us);
        log_info("baseline " + key + " on GPU 0: " + score);
    }
    else
    {
        ev["error"] = json::object{{"kind", out.error_kind}, {"message", out.message}};
        log_warn("baseline " + key + " not timed: " + out.error_kind + ": " + out.message);
    }
    journal(ev);
    if (out.available())
        vendor_[key] = std::move(ev);
    else
        vendor_skipped_[key] = json::object{{"kind", out.error_kind}, {"message", out.message}};
}

}  // namespace warpsmith
