#include "engine/search/search_engine_impl.hpp"
#include "harness/json/lenient.hpp"

namespace warpsmith
{

using namespace search_detail;

asio::awaitable<compile_output> search_engine::impl::compile(compile_request request)
{
    request.arch = arch_;
    co_return co_await backend_.compile(std::move(request));
}

bool search_engine::impl::record_usage(int branch, const token_usage& u)
{
    json::object ev = to_json(u);
    ev["event"] = "usage";
    ev["branch"] = branch;
    journal(ev);
    if (auto reason = budget_.add_usage(u))
        request_stop(*reason, false);
    return !budget_.usage_exhausted();
}

asio::awaitable<void> search_engine::impl::propose_pipeline(propose_action a,
                                                            std::shared_ptr<pipeline_slot> slot)
{
    // Spawned before a stop, started after it: do not call the strategy any more.
    if (sched_.stopping())
        co_return;
    // --use-nsight: the round's feedback carries the profile of the best so far.
    if (profiles_.enabled() && opts_.nsight.each_round && best_)
        co_await profile(records_[*best_].id(), std::string());
    if (sched_.stopping())
        co_return;
    proposal_context ctx;
    ctx.branch = a.branch;
    ctx.iteration = a.iteration;
    ctx.view = view(a.iteration);
    ctx.services = this;
    if (a.repair_of)
        if (auto it = by_id_.find(*a.repair_of); it != by_id_.end())
            ctx.repair_of = &records_[it->second].ec;
    notify_progress();

    std::optional<proposal> p;
    std::string error;
    bool failed = false;
    try
    {
        p = co_await strat_.propose(std::move(ctx));
    }
    catch (const std::exception& e)
    {
        failed = true;
        error = e.what();
    }
    catch (...)
    {
        failed = true;
        error = "unknown exception";
    }
    if (failed)
    {
        if (slot->cancel_requested)
            co_return;  // pipeline_ended() gives the ticket back.
        journal(json::object{{"event", "proposal_failed"},
                             {"branch", a.branch},
                             {"iteration", a.iteration},
                             {"error", error}});
        slot->reported = true;
        if (sched_.proposal_failed(a.branch))
            journal(json::object{
                {"event", "branch_stopped"}, {"branch", a.branch}, {"reason", "failures"}, {"error", error}});
        wake();
        co_return;
    }
    if (!p && slot->cancel_requested)
        co_return;  // a strategy that answers a cancellation with nothing is not exhausted
    if (!p)
    {
        slot->reported = true;
        sched_.proposal_none(a.branch);
        journal(json::object{{"event", "branch_stopped"}, {"branch", a.branch}, {"reason", "exhausted"}});
        wake();
        co_return;
    }
    // A proposal that arrives just as the run stops is still recorded, so it is not lost: it
    // is evaluated within the grace period if the run allows, or on --resume. The cancellation
    // aimed at the proposal must not hit its compile.
    if (slot->cancel_requested)
    {
        co_await asio::this_coro::reset_cancellation_state();
        slot->cancel_requested = false;
    }
    const auto idx = add_record(a, std::move(*p));
    sched_.proposal_made(a.branch);
    slot->reported = co_await evaluate_candidate(idx, true);
}

asio::awaitable<void> search_engine::impl::recover_pipeline(std::vector<std::size_t> pending,
                                                            std::shared_ptr<pipeline_slot> slot)
{
    for (std::size_t i = 0; i < pending.size(); ++i)
    {
        const bool last = i + 1 == pending.size();
        const bool recorded = co_await evaluate_candidate(pending[i], last);
        if (!recorded)
            co_return;
        slot->reported = last;
    }
}

void search_engine::impl::spawn(int branch,
                                const std::shared_ptr<pipeline_slot>& slot,
                                asio::awaitable<void> body)
{
    slot->branch = branch;
    pipelines_.push_back(slot);
    auto done = [this, slot](const std::exception_ptr& e) { on_pipeline_exit(slot, e); };
    asio::co_spawn(ioc_, std::move(body), asio::bind_cancellation_slot(slot->signal.slot(), std::move(done)));
}

void search_engine::impl::on_pipeline_exit(const std::shared_ptr<pipeline_slot>& slot,
                                           const std::exception_ptr& e)
{
    std::erase(pipelines_, slot);
    if (!slot->reported)
        sched_.pipeline_ended(slot->branch);
    if (e && !slot->cancel_requested)
    {
        try
        {
            std::rethrow_exception(e);
        }
        catch (const std::exception& ex)
        {
            fail(std::string("branch ") + std::to_string(slot->branch) + ": " + ex.what());
        }
        catch (...)
        {
            fail("branch " + std::to_string(slot->branch) + ": unknown exception");
        }
    }
    if (slot->recovery)
        --pending_pipelines_;
    wake();
}

void search_engine::impl::fail(const std::string& message)
{
    if (fatal_error_.empty())
        fatal_error_ = message;
    log_error(message);
    request_stop("error", true);
}

void search_engine::impl::cancel(const std::shared_ptr<pipeline_slot>& slot)
{
    if (slot->cancel_requested)
        return;
    slot->cancel_requested = true;
    slot->signal.emit(asio::cancellation_type::terminal);
}

void search_engine::impl::request_stop(const std::string& reason, bool interrupt)
{
    if (loop_finished_)
        return;
    const bool was_stopping = sched_.stopping();
    const bool was_interrupted = sched_.interrupted();
    const auto to_cancel = sched_.stop(reason, interrupt);
    if (!was_stopping || (interrupt && !was_interrupted))
        journal(json::object{{"event", "stop_requested"}, {"reason", reason}, {"interrupt", interrupt}});
    for (int b : to_cancel)
        for (auto& s : std::vector(pipelines_))
            if (s->branch == b)
                cancel(s);
    if (!was_stopping)
        start_timer(grace_signal_,
                    opts_.grace_seconds,
                    [this]
                    {
                        journal(json::object{{"event", "grace_expired"},
                                             {"cancelled", static_cast<int>(pipelines_.size())}});
                        for (auto& s : std::vector(pipelines_))
                            cancel(s);
                    });
    wake();
}

asio::awaitable<void> search_engine::impl::timer_body(double secs, std::function<void()> fire)
{
    co_await clock_.sleep_for(from_seconds(secs));
    fire();
}

void search_engine::impl::start_timer(std::shared_ptr<asio::cancellation_signal>& sig,
                                      double secs,
                                      std::function<void()> fire)
{
    sig = std::make_shared<asio::cancellation_signal>();
    auto ignore = [sig](const std::exception_ptr&) {};
    asio::co_spawn(
        ioc_, timer_body(secs, std::move(fire)), asio::bind_cancellation_slot(sig->slot(), ignore));
}

void search_engine::impl::stop_timer(std::shared_ptr<asio::cancellation_signal>& sig)
{
    if (sig)
        sig->emit(asio::cancellation_type::terminal);
    sig.reset();
}

asio::awaitable<search_result> search_engine::impl::run(std::optional<replayed_run> resume)
{
    std::exception_ptr error;
    try
    {
        co_return co_await run_body(std::move(resume));
    }
    catch (...)
    {
        error = std::current_exception();
    }
    // A failure before the loop (no GPU, a broken reference) must not leave timers behind.
    finish_files();
    loop_finished_ = true;
    stop_timer(wall_signal_);
    stop_timer(grace_signal_);
    std::rethrow_exception(error);
}

asio::awaitable<search_result> search_engine::impl::run_body(std::optional<replayed_run> resume)
{
    t_start_ = clock_.now();
    session_ = json::object{{"started", utc_timestamp()}, {"resumed", resume.has_value()}};
    journal(json::object{{"event", "run_started"},
                         {"run", run_.name()},
                         {"resumed", resume.has_value()},
                         {"options", opts_.to_json()}});
    // The wall-time budget counts from here: starting workers and the baselines are part of the run.
    if (opts_.budgets.wall_seconds)
        start_timer(
            wall_signal_, *opts_.budgets.wall_seconds, [this] { request_stop("max_wall_time", false); });
    co_await backend_.start(work_, opts_.hidden_seed);
    arch_ = "sm_90";
    for (int g = 0; g < backend_.gpu_count(); ++g)
    {
        const std::string a = lenient::string_or(backend_.device_info(g), "arch");
        if (g == 0 && !a.empty())
            arch_ = a;
        else if (!a.empty() && a != arch_)
            throw user_error("the selected GPUs have different architectures (" + arch_ + ", " + a +
                             "); choose GPUs of one kind with --gpus");
    }
    run_.write_json("run.json", run_json("running"));
    co_await evaluate_baselines();
    // Vendor baselines are timed once per run: a resume keeps those an earlier session timed.
    if (resume)
        vendor_ = resume->vendor_baselines;
    co_await evaluate_vendor_baselines();

    if (resume)
        restore(std::move(*resume));
    if (budget_.usage_exhausted())
        request_stop(budget_.limits().tokens &&
                             budget_tracker::counted_tokens(budget_.usage()) >= *budget_.limits().tokens
                         ? "max_tokens"
                         : "max_cost",
                     false);
    if (!pending_by_branch_.empty())
    {
        // Strategies observe the pending candidates before anyone proposes again, so a
        // strategy never re-proposes what was proposed before the stop.
        sched_.hold(true);
        recovering_ = true;
        pending_pipelines_ = static_cast<int>(pending_by_branch_.size());
        for (auto& [branch, list] : pending_by_branch_)
        {
            auto slot = std::make_shared<pipeline_slot>();
            slot->recovery = true;
            spawn(branch, slot, recover_pipeline(list, slot));
        }
    }

    for (;;)
    {
        if (recovering_ && pending_pipelines_ == 0)
        {
            recovering_ = false;
            sched_.hold(false);
        }
        auto step = sched_.poll();
        for (int k : step.finished_iterations)
            journal(json::object{{"event", "iteration_finished"}, {"iteration", k}});
        for (auto& a : step.start)
        {
            reserve_number(a);
            auto slot = std::make_shared<pipeline_slot>();
            spawn(a.branch, slot, propose_pipeline(a, slot));
        }
        if (!step.start.empty() || !step.finished_iterations.empty())
            continue;
        if (sched_.done() && pipelines_.empty())
            break;
        co_await wake_.async_receive(asio::as_tuple(asio::use_awaitable));
    }
    loop_finished_ = true;
    stop_timer(wall_signal_);
    stop_timer(grace_signal_);

    search_result res;
    res.stop_reason = sched_.finish_reason();
    if (!fatal_error_.empty())
    {
        res.status = "failed";
        res.error = fatal_error_;
        res.exit_code = 1;
        res.stop_reason = "error";
    }
    else if (sched_.interrupted())
    {
        res.status = "interrupted";
        res.exit_code = 130;
    }
    else
        res.status = "finished";

    if (res.status == "finished")
    {
        co_await confirm();
    }
    else
        confirmation_ = json::object{{"skipped", "run " + res.status}};

    finish_files();
    auto best = write_best(best_state());
    best_json_ = std::move(best.json);
    best_note_ = std::move(best.note);
    winner_ = best.winner;
    res.winner = winner_;
    if (res.status == "finished" && profiles_.enabled() && opts_.nsight.profile_winner && winner_)
        co_await profile_winner(*winner_);
    write_history();
    const double wall = seconds(clock_.now() - t_start_);
    res.summary =
        summary(summary_state(), search_outcome{res.status, res.stop_reason, res.error, res.exit_code}, wall);
    if (profiles_.enabled())
        res.summary["profiles"] = profiles_.summary_json();
    try
    {
        run_.write_json("summary.json", res.summary);
        run_.write_json("run.json", run_json(res.status));
    }
    catch (const std::exception& e)
    {
        log_warn(std::string("cannot write summary.json: ") + e.what());
    }
    journal(json::object{{"event", "run_finished"},
                         {"status", res.status},
                         {"reason", res.stop_reason},
                         {"winner", opt_json(res.winner)},
                         {"exit_code", res.exit_code}});
    journal_.sync();
    co_return res;
}

search_engine::search_engine(asio::io_context& ioc,
                             evaluation_backend& backend,
                             strategy& strat,
                             clock_source& clock,
                             const workload& w,
                             search_options opts,
                             const run_directory& run,
                             journal_writer& journal,
                             json::object run_info,
                             progress_sink* progress)
    : impl_(std::make_unique<impl>(
          ioc, backend, strat, clock, w, std::move(opts), run, journal, std::move(run_info), progress))
{
}

search_engine::~search_engine() = default;

asio::awaitable<search_result> search_engine::run(std::optional<replayed_run> resume)
{
    co_return co_await impl_->run(std::move(resume));
}

void search_engine::request_stop(const std::string& reason, bool interrupt)
{
    impl_->request_stop(reason, interrupt);
}

const std::vector<evaluated_candidate>& search_engine::history() const
{
    return impl_->history_;
}

progress_snapshot search_engine::snapshot() const
{
    return impl_->snapshot();
}

}  // namespace warpsmith
