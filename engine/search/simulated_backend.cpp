#include "engine/search/simulated_backend.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <boost/json/array.hpp>

#include <cmath>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;

namespace
{

constexpr std::string_view cubin_prefix = "FAKE-CUBIN\n";

double marker_number(std::string_view source, std::string_view key, double dflt)
{
    auto v = fake_marker(source, key);
    if (!v || v->empty())
        return dflt;
    try
    {
        return std::stod(*v);
    }
    catch (const std::exception&)
    {
        return dflt;
    }
}

clock_source::duration marker_ms(std::string_view source, std::string_view key, clock_source::duration dflt)
{
    auto v = fake_marker(source, key);
    if (!v || v->empty())
        return dflt;
    return std::chrono::duration_cast<clock_source::duration>(
        std::chrono::duration<double, std::milli>(marker_number(source, key, 0)));
}

protocol::timing_report timing_for(double median, const timing_options& t, const std::string& case_name = "")
{
    // How the worker's adaptive timing would stop (harness/worker/timer.hpp): a case above its
    // dominance threshold, or any case under a noise target (the simulated noise is 0.5% of the
    // target), after the first segment; fixed timing measures every launch.
    protocol::timing_report r;
    r.stopped = protocol::timing_stop::fixed;
    int samples = t.iterations;
    const auto dominated = t.dominated_above_us.find(case_name);
    if (dominated != t.dominated_above_us.end() && median > dominated->second &&
        t.iterations > timing_segment_launches)
    {
        r.stopped = protocol::timing_stop::dominated;
        samples = timing_segment_launches + 1;
    }
    else if (t.target_rel_noise > 0)
    {
        r.stopped = t.iterations > timing_segment_launches ? protocol::timing_stop::quiet
                                                           : protocol::timing_stop::ceiling;
        samples = std::min(t.iterations, timing_segment_launches + 1);
    }
    timing_stats s;
    s.median_us = median;
    s.mean_us = median * 1.002;
    s.min_us = median * 0.98;
    s.max_us = median * 1.05;
    s.p10_us = median * 0.99;
    s.p90_us = median * 1.02;
    s.stddev_us = median * 0.01;
    s.rel_iqr = 0.01;
    s.samples = samples;
    r.stats = s;
    r.warmup = t.warmup;
    r.mode = t.mode;
    r.target_rel_noise = t.target_rel_noise;
    r.rel_noise = t.target_rel_noise * 0.005;
    r.wall_us_per_launch = median * 1.03;
    return r;
}

/// The source a request carries: the fake cubin (prefix + source) or the candidate's source.
std::string source_of(const evaluate_request& req)
{
    if (req.cubin.rfind(cubin_prefix, 0) == 0)
        return req.cubin.substr(cubin_prefix.size());
    return req.cand.source;
}

}  // namespace

std::optional<std::string> fake_marker(std::string_view source, std::string_view key)
{
    std::size_t pos = 0;
    while ((pos = source.find("FAKE:", pos)) != std::string_view::npos)
    {
        pos += 5;
        while (pos < source.size() && source[pos] == ' ')
            ++pos;
        auto end = pos;
        while (end < source.size() && source[end] != ' ' && source[end] != '\n' && source[end] != '\r' &&
               source[end] != '\t' && source[end] != '*')
            ++end;
        const auto token = source.substr(pos, end - pos);
        const auto eq = token.find('=');
        const auto k = token.substr(0, eq);
        if (k == key)
            return eq == std::string_view::npos ? std::string() : std::string(token.substr(eq + 1));
        pos = end;
    }
    return std::nullopt;
}

simulated_backend::simulated_backend(asio::io_context& ioc,
                                     clock_source& clock,
                                     simulated_backend_options opts)
    : clock_(clock),
      opts_(std::move(opts)),
      compile_slots_(ioc.get_executor(), std::max(1, opts_.compile_workers)),
      gpu_state_(static_cast<std::size_t>(std::max(1, opts_.gpus)))
{
    opts_.gpus = std::max(1, opts_.gpus);
    for (int i = 0; i < opts_.gpus; ++i)
    {
        gpu_slots_.push_back(std::make_unique<resource_pool>(ioc.get_executor(), 1));
        devices_.push_back(json::object{{"name", opts_.gpu_name},
                                        {"index", i},
                                        {"arch", opts_.arch},
                                        {"compute_capability", json::array{9, 0}},
                                        {"sm_count", 132},
                                        {"simulated", true}});
    }
}

void simulated_backend::record(std::string kind, std::string name, int resource)
{
    events_.push_back(sim_event{clock_.now_seconds(), std::move(kind), std::move(name), resource});
}

asio::awaitable<void> simulated_backend::start(const workload& w, std::uint64_t)
{
    work_ = w;
    if (opts_.load_latency > clock_source::duration::zero())
        co_await clock_.sleep_for(opts_.load_latency);
}

asio::awaitable<void> simulated_backend::stop()
{
    co_return;
}

gpu_status simulated_backend::status(int gpu) const
{
    auto s = gpu_state_.at(gpu);
    s.queued = gpu_slots_.at(gpu)->state().waiting();
    return s;
}

asio::awaitable<compile_output> simulated_backend::compile(compile_request request)
{
    ++compiles_in_flight_;
    int worker = -1;
    try
    {
        worker = co_await compile_slots_.acquire();
    }
    catch (...)
    {
        --compiles_in_flight_;
        throw;
    }
    record("compile_start", compile_label(request.source), worker);
    const auto latency = marker_ms(request.source, "compile_ms", opts_.compile_latency);
    try
    {
        co_await clock_.sleep_for(latency);
    }
    catch (...)
    {
        compile_slots_.release(worker);
        --compiles_in_flight_;
        throw;
    }
    compile_slots_.release(worker);
    --compiles_in_flight_;
    ++compiles_;
    record("compile_end", compile_label(request.source), worker);

    compile_output out;
    out.arch = request.arch;
    out.compile_ms = std::chrono::duration<double, std::milli>(latency).count();
    out.key = "sim-" + compile_label(request.source);
    if (fake_marker(request.source, "compile_error"))
    {
        out.error = "fake compile error";
        out.log = request.name + "(1): error: fake compile error\n";
        co_return out;
    }
    if (request.source.find(request.entry) == std::string::npos)
    {
        out.error = "entry '" + request.entry + "' not found in the module";
        co_return out;
    }
    out.compiled = true;
    out.entries = {request.entry};
    out.cubin = std::string(cubin_prefix) + request.source;
    out.resources.registers = static_cast<int>(marker_number(request.source, "registers", 32));
    out.log = "ptxas info: simulated compile of " + request.name + "\n";
    co_return out;
}

protocol::evaluation_result simulated_backend::result_for(const std::string& source,
                                                          const timing_options& t,
                                                          std::string& restart_reason) const
{
    protocol::evaluation_result result;
    std::string failure_kind;
    if (fake_marker(source, "fault"))
        failure_kind = "fault";
    else if (fake_marker(source, "launch_hang") || fake_marker(source, "hang"))
        failure_kind = "hang";
    else if (fake_marker(source, "crash"))
        failure_kind = "worker_crash";
    if (!failure_kind.empty())
        restart_reason = failure_kind;
    else if (auto k = fake_marker(source, "invalid"))
        failure_kind = k->empty() ? "mismatch" : *k;

    const double median = marker_number(source, "median_us", 100);
    bool timed = false;
    for (const auto& c : work_->cases)
    {
        protocol::case_result co;
        co.name = c.name;
        co.role = std::string(to_string(c.role));
        co.validation.passed = failure_kind.empty();
        if (c.role == case_role::performance && failure_kind.empty())
        {
            co.timing = timing_for(median, t, c.name);
            timed = true;
        }
        result.cases.push_back(std::move(co));
    }
    result.status =
        failure_kind.empty() ? protocol::evaluation_status::valid : protocol::evaluation_status::invalid;
    if (!failure_kind.empty())
        result.failure = protocol::failure_report{failure_kind,
                                                  work_->cases.empty() ? std::string() : work_->cases[0].name,
                                                  "simulated " + failure_kind};
    if (timed && failure_kind.empty())
        result.score_us = median;
    protocol::environment_info env;
    env.gpu = opts_.gpu_name;
    env.arch = opts_.arch;
    env.simulated = true;
    result.environment = env;
    return result;
}

asio::awaitable<gpu_evaluation> simulated_backend::evaluate(int gpu, evaluate_request request)
{
    if (!work_)
        throw user_error("simulated backend: evaluate before start");
    auto& slot = *gpu_slots_.at(gpu);
    const auto t_queue = clock_.now();
    const int g = co_await slot.acquire();
    (void)g;
    const auto source = source_of(request);
    gpu_evaluation out;
    out.device = gpu;
    out.queued_ms = std::chrono::duration<double, std::milli>(clock_.now() - t_queue).count();
    gpu_state_[gpu].busy = true;
    record("gpu_start", request.name, gpu);
    const auto latency = marker_ms(source, "evaluate_ms", opts_.gpu_latency);
    try
    {
        co_await clock_.sleep_for(latency);
    }
    catch (...)
    {
        gpu_state_[gpu].busy = false;
        gpu_state_[gpu].busy_seconds += std::chrono::duration<double>(latency).count();
        slot.release(0);
        record("gpu_cancelled", request.name, gpu);
        throw;
    }
    record("gpu_end", request.name, gpu);
    gpu_state_[gpu].busy = false;
    out.busy_ms = std::chrono::duration<double, std::milli>(latency).count();
    gpu_state_[gpu].busy_seconds += out.busy_ms / 1000;
    ++evaluations_;
    out.result = result_for(source, request.timing, out.restart_reason);
    out.result.eval_ms = out.busy_ms;
    out.worker_restarted = !out.restart_reason.empty();
    if (out.worker_restarted)
        ++gpu_state_[gpu].restarts;
    slot.release(0);
    co_return out;
}

asio::awaitable<baseline_outcome> simulated_backend::baseline(int gpu, baseline_request request)
{
    if (!work_)
        throw user_error("simulated backend: baseline before start");
    baseline_requests_.push_back(request.name + "/" + request.math);
    baseline_outcome out;
    const baseline_spec* spec = work_->find_baseline(request.name);
    if (!spec || spec->kind != request.kind)
    {
        out.error_kind = "no_baseline";
        out.message = "baseline: workload '" + work_->name + "' declares no " + request.kind +
                      " baseline named '" + request.name + "'";
        co_return out;
    }
    if (!opts_.baselines_available)
    {
        out.error_kind = "no_baseline";
        out.message = "baseline: cuBLAS not found (simulated)";
        co_return out;
    }
    auto& slot = *gpu_slots_.at(gpu);
    co_await slot.acquire();
    const std::string name = request.name + " (" + request.math + ")";
    gpu_state_[gpu].busy = true;
    record("gpu_start", name, gpu);
    try
    {
        co_await clock_.sleep_for(opts_.gpu_latency);
    }
    catch (...)
    {
        gpu_state_[gpu].busy = false;
        slot.release(0);
        record("gpu_cancelled", name, gpu);
        throw;
    }
    record("gpu_end", name, gpu);
    gpu_state_[gpu].busy = false;
    out.busy_ms = std::chrono::duration<double, std::milli>(opts_.gpu_latency).count();
    gpu_state_[gpu].busy_seconds += out.busy_ms / 1000;
    slot.release(0);

    const bool tf32 = request.math == "tf32";
    const double median = tf32 ? opts_.baseline_tf32_median_us : opts_.baseline_median_us;
    const double error = tf32 ? 2e-3 : 1e-6;
    protocol::baseline_result b;
    b.name = spec->name;
    b.kind = spec->kind;
    b.math = request.math;
    b.library = protocol::library_info{"simulated", "0"};
    for (const auto& c : work_->cases)
    {
        const bool perf = c.role == case_role::performance;
        const auto g = work_->baseline_shape(*spec, c);
        protocol::baseline_case bc;
        bc.name = c.name;
        bc.role = std::string(to_string(c.role));
        bc.gemm = protocol::gemm_dims{g.m, g.n, g.k};
        bc.validation.passed = !tf32;
        bc.validation.max_abs_error = error;
        bc.validation.max_rel_error = error;
        if (perf)
        {
            bc.timing = timing_for(median, request.timing);
            b.case_median_us[c.name] = median;
        }
        b.cases.push_back(std::move(bc));
    }
    if (!b.case_median_us.empty())
        b.score_us = median;
    b.within_tolerance = !tf32;
    b.max_abs_error = error;
    b.max_rel_error = error;
    b.environment = protocol::environment_info{};
    b.environment->gpu = opts_.gpu_name;
    b.environment->arch = opts_.arch;
    b.environment->simulated = true;
    b.eval_ms = out.busy_ms;
    out.baseline = std::move(b);
    co_return out;
}

asio::awaitable<protocol::interleaved_result> simulated_backend::time_interleaved(
    int gpu, std::vector<std::pair<std::string, evaluate_request>> entries, int rounds)
{
    auto& slot = *gpu_slots_.at(gpu);
    co_await slot.acquire();
    gpu_state_[gpu].busy = true;
    record("interleaved_start", "confirmation", gpu);
    const auto latency = opts_.interleaved_latency * static_cast<long>(entries.size()) * std::max(1, rounds);
    try
    {
        co_await clock_.sleep_for(latency);
    }
    catch (...)
    {
        gpu_state_[gpu].busy = false;
        slot.release(0);
        throw;
    }
    record("interleaved_end", "confirmation", gpu);
    gpu_state_[gpu].busy = false;
    gpu_state_[gpu].busy_seconds += std::chrono::duration<double>(latency).count();
    slot.release(0);

    json::object timings;
    json::object invalid;
    timing_options t;
    t.iterations = rounds;
    t.target_rel_noise = 0;  // interleaved rounds are a fixed count
    for (const auto& [key, req] : entries)
    {
        const auto source = source_of(req);
        if (auto k = fake_marker(source, "confirm_invalid"))
        {
            // The worker found this entry's interleaved launches invalid: no timings.
            const auto kind = k->empty() ? std::string("timed_output_mismatch") : *k;
            std::string first_perf;
            for (const auto& c : work_->cases)
                if (c.role == case_role::performance && first_perf.empty())
                    first_perf = c.name;
            invalid[key] =
                json::object{{"kind", kind},
                             {"case", first_perf.empty() ? json::value(nullptr) : json::value(first_perf)},
                             {"message", "simulated " + kind + " during the interleaved confirmation"}};
            timings[key] = json::object{};
            continue;
        }
        const double median =
            marker_number(source, "confirm_median_us", marker_number(source, "median_us", 100));
        json::object per_case;
        for (const auto& c : work_->cases)
            if (c.role == case_role::performance)
                per_case[c.name] = timing_for(median, t).to_json();
        timings[key] = std::move(per_case);
    }
    co_return protocol::interleaved_result::from_json(
        json::object{{"timings", std::move(timings)}, {"invalid", std::move(invalid)}});
}

std::string simulated_backend::compile_label(const std::string& source)
{
    return "src-" + sha256_hex(source).substr(0, 12);
}

}  // namespace warpsmith
