#include "agents/autotune/autotune_strategy.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json/array.hpp>

#include <cmath>

namespace warpsmith
{

namespace json = boost::json;
using autotune::point;
using autotune::suggestion;

namespace
{

double steady_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double score_of(const evaluated_candidate& c)
{
    if (c.valid && c.score_us > 0 && std::isfinite(c.score_us))
        return c.score_us;
    return autotune::infeasible_score;
}

}  // namespace

json::object autotune_options::to_json() const
{
    json::array opts;
    for (const auto& o : compile_options)
        opts.push_back(json::value(o));
    return json::object{{"strategy", strategy},
                        {"seed", optimizer.seed},
                        {"expected_evaluations", optimizer.expected_evaluations},
                        {"population", optimizer.population},
                        {"prune_after_compile", prune_after_compile},
                        {"compile_options", std::move(opts)}};
}

autotune_options autotune_options::from_json(const json_reader& r)
{
    autotune_options t;
    t.strategy = r.require_string("strategy");
    t.optimizer.seed = r.require_uint64("seed");
    t.optimizer.expected_evaluations = static_cast<std::size_t>(r.require_uint64("expected_evaluations"));
    if (auto population = r.optional_uint64("population"))
        t.optimizer.population = static_cast<std::size_t>(*population);
    t.prune_after_compile = r.optional_bool("prune_after_compile").value_or(t.prune_after_compile);
    t.compile_options = r.optional_strings("compile_options");
    return t;
}

autotune_strategy::autotune_strategy(const workload& w, autotune_options opts, event_sink events)
    : work_(w), opts_(std::move(opts)), events_(std::move(events))
{
    // Fail on a bad strategy name or an untunable workload now, not at the first proposal.
    bool known = false;
    for (const auto& n : autotune::optimizer_names())
        known = known || n == opts_.strategy;
    if (!known)
        throw user_error("--strategy: unknown autotune strategy '" + opts_.strategy +
                         "' (expected grid, random, local, anneal or genetic)");
    if (w.tunables.empty())
        throw user_error("workload '" + w.name +
                         "' has no tunables to tune (add \"tunables\" to its workload.json)");
    kernel_ = w.tunable ? &*w.tunable : (w.initial ? &*w.initial : nullptr);
    if (!kernel_)
        throw user_error("workload '" + w.name + "' has neither a tunable nor an initial kernel to tune");
    if (auto why = check_compile_options(opts_.compile_options))
        throw user_error("autotune compile options: " + *why);
    if (!opts_.now_seconds)
        opts_.now_seconds = steady_seconds;
}

autotune_strategy::~autotune_strategy() = default;

void autotune_strategy::emit(const json::object& ev) const
{
    if (events_)
        events_(ev);
}

double autotune_strategy::elapsed() const
{
    return start_ < 0 ? 0 : opts_.now_seconds() - start_;
}

void autotune_strategy::prepare(const json::object& device)
{
    if (space_)
        return;
    device_ = device;
    space_ = std::make_unique<autotune::search_space>(
        autotune::search_space::from_workload(work_, autotune::device_limits::from_device(device)));
    stats_ = space_->stats();
    opt_ = autotune::make_optimizer(opts_.strategy, *space_, opts_.optimizer);
    start_ = opts_.now_seconds();

    json::object dims;
    for (const auto& d : space_->dimensions())
    {
        json::array values;
        for (auto v : d.values)
            values.push_back(v);
        dims[d.name] = std::move(values);
    }
    log_info("search space of " + work_.name + ": " + stats_.describe() + " (" + opts_.strategy + ")");
    emit(json::object{{"event", "tune_space"},
                      {"strategy", opts_.strategy},
                      {"seed", opts_.optimizer.seed},
                      {"space", stats_.to_json()},
                      {"dimensions", std::move(dims)},
                      {"limits", space_->limits().to_json()}});
}

std::optional<suggestion> autotune_strategy::next_point()
{
    if (!space_)
        throw std::logic_error("autotune_strategy::next_point before prepare");
    for (;;)
    {
        std::optional<suggestion> s;
        if (!retry_.empty())
        {
            s = std::move(retry_.back());
            retry_.pop_back();
        }
        else
        {
            if (opts_.max_wall_seconds && *opts_.max_wall_seconds > 0)
                opt_->set_progress(elapsed() / *opts_.max_wall_seconds);
            s = opt_->ask();
            if (s)
                ask_seq_.emplace(space_->defines(s->p), ++asks_);
        }
        if (!s)
            return std::nullopt;
        // A point an earlier session evaluated: its recorded score stands in for a new evaluation.
        if (auto it = known_.find(space_->defines(s->p)); it != known_.end())
        {
            const double score = it->second;
            known_.erase(it);
            tell_in_order(s->p, score);
            continue;
        }
        return s;
    }
}

compile_request autotune_strategy::compile_request_for(const point& p) const
{
    // The same request the engine will make for the proposed candidate, so the pruning compile
    // and the engine's compile share one cache entry.
    std::string arch = "sm_90";
    if (auto a = lenient::string_at(device_, "arch"); a && !a->empty())
        arch = std::move(*a);
    return warpsmith::compile_request_for(candidate_for(p), arch);
}

autotune::feasibility autotune_strategy::judge_compiled(const point& p, const compile_output& out) const
{
    if (!out.compiled)
        return {autotune::verdict::compile_failed, out.error.empty() ? "does not compile" : out.error};
    return space_->check_resources(p, out.resources);
}

bool autotune_strategy::accept_compiled(const point& p, const compile_output& out)
{
    const autotune::feasibility f = judge_compiled(p, out);
    if (f.ok())
        return true;
    pruned_point pp{space_->to_json(p), f.result, f.reason, std::nullopt};
    if (out.compiled)
        pp.resources = out.resources;
    emit(json::object{{"event", "tune_pruned"},
                      {"point", pp.point},
                      {"why", to_string(f.result)},
                      {"reason", f.reason},
                      {"resources", out.compiled ? out.resources.to_json() : json::value(nullptr)}});
    log_info("pruned " + space_->describe(p) + ": " + f.reason);
    pruned_.push_back(std::move(pp));
    tell_in_order(p, autotune::infeasible_score);
    return false;
}

void autotune_strategy::give_back(suggestion s)
{
    retry_.push_back(std::move(s));
}

candidate autotune_strategy::candidate_for(const point& p) const
{
    candidate c;
    c.source = kernel_->source;
    c.entry = kernel_->entry;
    c.defines = space_->defines(p);
    c.options = opts_.compile_options;
    c.launch = kernel_->launch;
    return c;
}

proposal autotune_strategy::make_proposal(const suggestion& s)
{
    proposal pr;
    pr.cand = candidate_for(s.p);
    in_flight_.insert(pr.cand.defines);
    pr.rationale = opts_.strategy + " (" + s.how + "): " + space_->describe(s.p);
    if (s.parent)
    {
        if (auto it = id_of_.find(space_->defines(*s.parent)); it != id_of_.end())
        {
            pr.parent = it->second;
            pr.rationale += " (from " + it->second + ")";
        }
    }
    pr.meta = json::object{{"point", space_->to_json(s.p)},
                           {"strategy", opts_.strategy},
                           {"how", s.how},
                           {"seed", opts_.optimizer.seed}};
    return pr;
}

boost::asio::awaitable<std::optional<proposal>> autotune_strategy::propose(proposal_context ctx)
{
    if (!space_)
        prepare(ctx.view.device);
    for (;;)
    {
        auto s = next_point();
        if (!s)
            co_return std::nullopt;
        if (opts_.prune_after_compile && ctx.services)
        {
            auto request = compile_request_for(s->p);
            compile_output out;
            try
            {
                out = co_await ctx.services->compile(std::move(request));
            }
            catch (...)
            {
                // Not judged: the point is proposed again later rather than lost.
                give_back(std::move(*s));
                throw;
            }
            if (!accept_compiled(s->p, out))
                continue;
        }
        co_return make_proposal(*s);
    }
}

void autotune_strategy::tell_in_order(const point& p, double score)
{
    const auto it = ask_seq_.find(space_->defines(p));
    if (it == ask_seq_.end())
    {
        opt_->tell(p, score);  // not asked by this optimizer (cannot hold anything back)
        return;
    }
    held_.insert_or_assign(it->second, std::make_pair(p, score));
    ask_seq_.erase(it);
    // A point asked and never scored (a proposal the search dropped) must not hold the optimizer
    // back for good: past a generous window the gap is skipped.
    if (held_.size() > 256)
        next_tell_ = held_.begin()->first;
    for (auto h = held_.find(next_tell_); h != held_.end(); h = held_.find(next_tell_))
    {
        opt_->tell(h->second.first, h->second.second);
        held_.erase(h);
        ++next_tell_;
    }
}

std::optional<autotune_strategy::defines_map> autotune_strategy::point_of(const evaluated_candidate& c)
{
    const json::object* p = lenient::object_at(c.meta, "point");
    if (!p)
        return std::nullopt;
    defines_map d;
    for (const auto& kv : *p)
    {
        if (kv.value().is_int64())
            d[std::string(kv.key())] = kv.value().get_int64();
        else if (kv.value().is_uint64())
            d[std::string(kv.key())] = static_cast<std::int64_t>(kv.value().get_uint64());
        else
            return std::nullopt;
    }
    return d;
}

void autotune_strategy::observe(const evaluated_candidate& c)
{
    const double score = score_of(c);
    curve_.add(c.id, score);
    const auto d = point_of(c);
    if (!d)
        return;
    id_of_[*d] = c.id;
    if (std::isfinite(score) && (!best_ || score < best_->second))
    {
        best_ = std::make_pair(*d, score);
        best_id_ = c.id;
    }
    if (in_flight_.erase(*d) && space_)
    {
        if (auto p = space_->from_defines(*d))
        {
            tell_in_order(*p, score);
            return;
        }
    }
    // Not proposed by this session (restore, or a candidate left pending by an earlier one).
    known_[*d] = score;
}

json::object autotune_strategy::report() const
{
    json::object by_reason;
    json::array examples;
    for (const auto& p : pruned_)
    {
        auto& n = by_reason[to_string(p.why)];
        n = (n.is_int64() ? n.get_int64() : 0) + 1;
        if (examples.size() < 100)
            examples.push_back(
                json::object{{"point", p.point},
                             {"why", to_string(p.why)},
                             {"reason", p.reason},
                             {"resources", p.resources ? p.resources->to_json() : json::value(nullptr)}});
    }
    json::object o{{"strategy", opts_.strategy},
                   {"seed", opts_.optimizer.seed},
                   {"expected_evaluations", opts_.optimizer.expected_evaluations},
                   {"prune_after_compile", opts_.prune_after_compile},
                   {"evaluated", curve_.size()},
                   {"pruned",
                    json::object{{"count", pruned_.size()},
                                 {"by_reason", std::move(by_reason)},
                                 {"points", std::move(examples)}}}};
    if (space_)
    {
        json::object dims;
        for (const auto& d : space_->dimensions())
        {
            json::array values;
            for (auto v : d.values)
                values.push_back(v);
            dims[d.name] = std::move(values);
        }
        o["space"] = stats_.to_json();
        o["dimensions"] = std::move(dims);
        o["limits"] = space_->limits().to_json();
        o["asked"] = opt_->asked();
    }
    if (best_)
    {
        json::object pt;
        for (const auto& [k, v] : best_->first)
            pt[k] = v;
        o["best"] = json::object{{"id", best_id_}, {"point", std::move(pt)}, {"score_us", best_->second}};
    }
    else
        o["best"] = nullptr;
    const auto t = curve_.time_to_best();
    o["time_to_best"] = t ? json::value(*t) : json::value(nullptr);
    return o;
}

}  // namespace warpsmith
