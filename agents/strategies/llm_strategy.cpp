#include "agents/strategies/llm_strategy.hpp"

#include "agents/llm/proposal_format.hpp"
#include "agents/llm/providers/replay_client.hpp"
#include "agents/llm/tools.hpp"
#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace warpsmith
{

namespace json = boost::json;
namespace asio = boost::asio;
using llm::proposal_mode;

namespace
{

json::array citations_json(const std::vector<llm::url_citation>& citations)
{
    json::array out;
    for (const auto& c : citations)
        out.push_back(json::object{{"url", c.url}, {"title", c.title}});
    return out;
}

}  // namespace

std::uint64_t round_seed(std::uint64_t seed, int branch, int iteration)
{
    // splitmix64 over the three values: independent streams per (branch, iteration).
    auto mix = [](std::uint64_t z)
    {
        z += 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    return mix(mix(mix(seed) ^ static_cast<std::uint64_t>(branch + 1)) ^
               static_cast<std::uint64_t>(iteration + 1));
}

llm_strategy::llm_strategy(std::shared_ptr<llm::model_client> client,
                           llm_strategy_options opts,
                           const workload& w,
                           std::shared_ptr<const llm::redactor> redact)
    : client_(std::move(client)), opts_(std::move(opts)), work_(w), redact_(std::move(redact))
{
    if (opts_.guidance_dir.empty())
        opts_.guidance_dir = llm::default_guidance_dir();
}

llm_strategy::~llm_strategy()
{
    // The client may outlive the strategy (shared); its observer must not point at our writer.
    if (records_)
        client_->set_observer(nullptr);
}

void llm_strategy::set_record_dir(const std::filesystem::path& dir)
{
    records_ = std::make_unique<llm::record_writer>(dir, redact_);
    client_->set_observer(records_->observer());
}

namespace
{

/// The canonical order of candidates: by iteration, then branch, then id. Results arrive in a
/// different order from run to run (branches answer and finish when they do); every choice made
/// from the history (ties in score, tournament picks, "newest failures", the latest candidate of
/// each branch) must not depend on that, or a replay asks different questions than the run it
/// replays.
bool canonically_before(const evaluated_candidate& a, const evaluated_candidate& b)
{
    return std::tuple(a.iteration, a.branch, a.id.size(), std::string_view(a.id)) <
           std::tuple(b.iteration, b.branch, b.id.size(), std::string_view(b.id));
}

/// Whether a is a better candidate than b (valid ones only): the engine's order (scoring.hpp), with
/// the remaining ties left to the canonical order by the caller.
bool better(const evaluated_candidate& a, const evaluated_candidate& b)
{
    if (a.speedup_vs_reference != b.speedup_vs_reference)
        return a.speedup_vs_reference > b.speedup_vs_reference;
    return a.score_us < b.score_us;
}

}  // namespace

void llm_strategy::observe(const evaluated_candidate& c)
{
    for (auto& h : history_)
        if (h.id == c.id)
        {
            h = c;
            return;
        }
    history_.insert(std::upper_bound(history_.begin(), history_.end(), c, canonically_before), c);
}

std::vector<const evaluated_candidate*> llm_strategy::visible(const proposal_context& ctx) const
{
    std::vector<const evaluated_candidate*> out;
    for (const auto& c : history_)
        if (!ctx.view.barrier || c.iteration < ctx.iteration)
            out.push_back(&c);
    return out;
}

std::optional<evaluated_candidate> llm_strategy::best_visible(const proposal_context& ctx) const
{
    if (history_.empty())
        return ctx.view.best ? std::optional(*ctx.view.best) : std::nullopt;
    const evaluated_candidate* best = nullptr;
    for (const auto* c : visible(ctx))
        if (c->valid && c->score_us > 0 && (!best || better(*c, *best)))
            best = c;
    return best ? std::optional(*best) : std::nullopt;
}

std::vector<const evaluated_candidate*> llm_strategy::valid_by_score(const proposal_context& ctx) const
{
    std::vector<const evaluated_candidate*> out;
    for (const auto* c : visible(ctx))
        if (c->valid && c->score_us > 0)
            out.push_back(c);
    std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->score_us < b->score_us; });
    return out;
}

const evaluated_candidate* llm_strategy::best_of_branch(const proposal_context& ctx, int branch) const
{
    const evaluated_candidate* best = nullptr;
    for (const auto* c : visible(ctx))
        if (c->branch == branch && c->valid && c->score_us > 0 && (!best || c->score_us < best->score_us))
            best = c;
    return best;
}

llm::feedback_input llm_strategy::feedback_for(const proposal_context& ctx, const round_plan& p) const
{
    llm::feedback_input in;
    in.work = &work_;
    in.device = ctx.view.device;
    in.reference_median_us = ctx.view.reference_median_us;
    in.initial_median_us = ctx.view.initial_median_us;
    in.mode = p.mode;
    in.branch = ctx.branch;
    in.iteration = ctx.iteration;
    in.branches = ctx.view.branches;
    in.parent = p.parent;
    in.second_parent = p.second_parent;
    in.hint = p.hint;
    if (ctx.repair_of)
        in.repair_of = *ctx.repair_of;
    in.best = best_visible(ctx);
    if (ctx.view.best_profile && ctx.view.best_profile->ok)
    {
        in.best_profile = ctx.view.best_profile->text;
        in.best_profile_id = ctx.view.best_profile->candidate_id;
    }
    in.structured = client_->structured_output();
    in.tools = opts_.tools;
    const auto seen_now = visible(ctx);
    // Failures: this branch's first, newest first, then others'.
    std::vector<const evaluated_candidate*> own, others;
    for (auto it = seen_now.rbegin(); it != seen_now.rend(); ++it)
        if (!(*it)->valid && !(ctx.repair_of && (*it)->id == ctx.repair_of->id))
            ((*it)->branch == ctx.branch ? own : others).push_back(*it);
    for (auto* c : own)
        if (static_cast<int>(in.recent_failures.size()) < opts_.recent_failures)
            in.recent_failures.push_back(*c);
    for (auto* c : others)
        if (static_cast<int>(in.recent_failures.size()) < opts_.recent_failures)
            in.recent_failures.push_back(*c);
    // The latest candidate of each other branch.
    std::set<int> seen;
    for (auto it = seen_now.rbegin(); it != seen_now.rend(); ++it)
        if ((*it)->branch != ctx.branch && seen.insert((*it)->branch).second)
            in.other_branches.push_back(**it);
    std::sort(in.other_branches.begin(),
              in.other_branches.end(),
              [](const auto& a, const auto& b) { return a.branch < b.branch; });
    return in;
}

asio::awaitable<std::optional<proposal>> llm_strategy::propose(proposal_context ctx)
{
    if (fatal_)
        throw llm::fatal_provider_error(*fatal_);
    if (!records_ && ctx.services)
        set_record_dir(ctx.services->llm_record_dir());

    // Everything the round needs is copied now: the engine's view may change while we wait.
    std::mt19937_64 rng(round_seed(opts_.seed, ctx.branch, ctx.iteration));
    const std::optional<std::string> repair_id =
        ctx.repair_of ? std::optional<std::string>(ctx.repair_of->id) : std::nullopt;
    round_plan p;
    if (ctx.repair_of)
    {
        p.mode = proposal_mode::repair;
        if (ctx.repair_of->parent)
            for (const auto* c : visible(ctx))
                if (c->id == *ctx.repair_of->parent && c->valid)
                    p.parent = *c;
    }
    else
        p = plan(ctx, rng);
    const auto in = feedback_for(ctx, p);

    llm::model_request req;
    req.model = client_->model();
    req.branch = ctx.branch;
    req.iteration = ctx.iteration;
    req.purpose = std::string(llm::to_string(p.mode));
    req.stream = opts_.stream;
    req.reasoning_effort = opts_.reasoning_effort;
    req.max_output_tokens = opts_.max_output_tokens;
    req.web_search_domains = opts_.web_search_domains;
    req.schema = llm::output_schema{"kernel_proposal", llm::proposal_json_schema(), true};
    req.messages.push_back(llm::message::system(llm::render_system_prompt(in.structured, opts_.tools)));
    req.messages.push_back(llm::message::user(llm::render_user_prompt(in)));

    // The history tool answers from the round's visible candidates (a copy: later results must not
    // change what a tool call made during this round returns).
    std::vector<evaluated_candidate> round_history;
    for (const auto* c : visible(ctx))
        round_history.push_back(*c);
    llm::kernel_tools_context tctx;
    tctx.device = ctx.view.device;
    tctx.history = &round_history;
    tctx.reference_median_us = ctx.view.reference_median_us;
    tctx.services = ctx.services;
    tctx.nvidia_docs = opts_.nvidia_docs;
    tctx.guidance_dir = opts_.guidance_dir;
    tctx.profile = ctx.services && ctx.services->can_profile();
    llm::kernel_tools tools(std::move(tctx));

    std::optional<proposal> accepted;
    llm::answer_validator validate = [&](const llm::model_response& resp)
    {
        auto check = llm::read_proposal(resp.text, work_);
        accepted = std::move(check.prop);
        return check.problems;
    };
    const bool structured = in.structured;
    llm::repair_renderer repair = [structured](const std::vector<std::string>& problems)
    { return llm::render_answer_repair(problems, structured); };
    strategy_services* services = ctx.services;
    const int branch = ctx.branch;
    llm::usage_reporter report = [services, branch](const token_usage& u)
    { return services ? services->record_usage(branch, u) : true; };

    llm::exchange_outcome outcome;
    bool exhausted = false;
    try
    {
        outcome = co_await llm::run_exchange(*client_,
                                             std::move(req),
                                             opts_.tools ? &tools : nullptr,
                                             validate,
                                             repair,
                                             report,
                                             records_.get(),
                                             opts_.exchange);
    }
    catch (const llm::fatal_provider_error& e)
    {
        if (!fatal_)
            fatal_ = e.what();
        throw;
    }
    catch (const llm::replay_exhausted&)
    {
        exhausted = true;
    }
    if (exhausted)
        co_return std::nullopt;
    if (!outcome.accepted)
    {
        if (outcome.stop_reason == "budget")
            co_return std::nullopt;
        if (outcome.stop_reason == "refused")
            throw std::runtime_error("the model refused: " + outcome.refusal);
        throw std::runtime_error("no usable proposal");
    }

    proposal prop = std::move(*accepted);
    if (!outcome.citations.empty())
    {
        // The pages the model read and cited stay with the candidate (reports, later prompts).
        std::string sources;
        for (const auto& c : outcome.citations)
            sources += (sources.empty() ? "" : ", ") + c.url;
        prop.rationale += (prop.rationale.empty() ? "" : "\n") + std::string("Sources: ") + sources;
    }
    if (repair_id)
        prop.parent = *repair_id;
    else if (p.parent)
        prop.parent = p.parent->id;
    json::array parents;
    if (p.parent)
        parents.push_back(json::value(p.parent->id));
    if (p.second_parent)
        parents.push_back(json::value(p.second_parent->id));
    json::array recs;
    for (const auto& r : outcome.records)
        recs.push_back(json::value(r));
    prop.meta = json::object{
        {"strategy", opts_.kind},
        {"mode", llm::to_string(p.mode)},
        {"parents", std::move(parents)},
        {"provider", client_->provider()},
        {"model", client_->model()},
        {"llm_records", std::move(recs)},
        {"requests", outcome.requests},
        {"tool_calls", outcome.tool_calls},
        {"answer_repairs", outcome.answer_repairs},
        {"usage", llm::usage_to_json(outcome.usage)},
        {"citations", citations_json(outcome.citations)},
        {"features", extract_features(prop.cand, resource_usage{}, work_, ctx.view.device).to_json()}};
    if (!p.hint.empty())
        prop.meta["hint"] = p.hint;
    co_return prop;
}

// ---- refine ----

round_plan refine_strategy::plan(const proposal_context& ctx, std::mt19937_64&) const
{
    round_plan p;
    if (const auto* own = best_of_branch(ctx, ctx.branch))
    {
        p.mode = proposal_mode::improve;
        p.parent = *own;
    }
    return p;
}

// ---- beam ----

round_plan beam_strategy::plan(const proposal_context& ctx, std::mt19937_64&) const
{
    round_plan p;
    std::vector<const evaluated_candidate*> distinct;
    std::set<std::string> seen;
    for (const auto* c : valid_by_score(ctx))
    {
        sha256_builder b;
        b.add(c->cand.source).add(json::serialize(c->cand.launch.to_json()));
        for (const auto& [k, v] : c->cand.defines)
            b.add(k).add(std::to_string(v));
        if (seen.insert(b.hex()).second)
            distinct.push_back(c);
    }
    if (distinct.empty())
        return p;
    p.mode = proposal_mode::improve;
    p.parent = *distinct[static_cast<std::size_t>(ctx.branch) % distinct.size()];
    return p;
}

// ---- evolve ----

int evolve_strategy::islands(int branches) const
{
    if (options().islands > 0)
        return std::min(options().islands, std::max(1, branches));
    return std::max(1, std::min(4, branches / 2));
}

round_plan evolve_strategy::plan(const proposal_context& ctx, std::mt19937_64& rng) const
{
    round_plan p;
    const int branches = std::max(1, ctx.view.branches);
    const int n_islands = islands(branches);
    const int island = island_of(ctx.branch, branches);
    const auto all = valid_by_score(ctx);

    // Features of every valid candidate, and how common each feature bucket is.
    std::map<std::string, kernel_features> feats;
    std::map<std::string, int> bucket_count;
    for (const auto* c : all)
    {
        auto f = extract_features(*c, work(), ctx.view.device);
        ++bucket_count[f.key()];
        feats.emplace(c->id, std::move(f));
    }

    std::vector<const evaluated_candidate*> pop, foreign;
    for (const auto* c : all)
        (c->branch % n_islands == island ? pop : foreign).push_back(c);

    // Advice: a feature no valid candidate has tried yet.
    struct axis
    {
        const char* text;
        bool (*has)(const kernel_features&);
    };
    static const axis axes[] = {
        {"stage tiles of the inputs in shared memory and reuse them across the block",
         [](const kernel_features& f) { return f.shared_memory; }},
        {"use 128-bit vectorized global loads and stores (float4) where alignment allows, with a scalar path "
         "for "
         "odd sizes",
         [](const kernel_features& f) { return f.vector_width >= 4; }},
        {"compute several outputs per thread from registers (register tiling) to raise arithmetic intensity",
         [](const kernel_features& f) { return f.register_tiling; }},
        {"double-buffer the shared-memory tiles (prefetch the next tile while computing the current one)",
         [](const kernel_features& f) { return f.double_buffering; }},
        {"raise occupancy: fewer registers per thread or less shared memory per block so more warps hide "
         "latency",
         [](const kernel_features& f) { return f.occupancy >= 0.5; }},
        {"use warp shuffles for the reductions instead of shared memory round trips",
         [](const kernel_features& f) { return f.warp_shuffle; }},
    };
    std::vector<const axis*> unexplored;
    for (const auto& a : axes)
    {
        bool any = false;
        for (const auto& [id, f] : feats)
            any = any || a.has(f);
        if (!any)
            unexplored.push_back(&a);
    }
    if (!unexplored.empty())
        p.hint = std::string("no valid candidate so far does this; consider it: ") +
                 unexplored[std::uniform_int_distribution<std::size_t>(0, unexplored.size() - 1)(rng)]->text +
                 ".";

    // The island's population, or everyone's when the island has nothing valid yet.
    const auto& source = pop.empty() ? all : pop;
    if (source.empty())
        return p;  // start

    // Tournament of 3 on score, with a bonus for rare feature buckets (diversity).
    auto fitness = [&](const evaluated_candidate* c)
    {
        const int count = bucket_count[feats.at(c->id).key()];
        return c->score_us / (1.0 + 0.15 / std::max(1, count));
    };
    std::uniform_int_distribution<std::size_t> pick(0, source.size() - 1);
    const evaluated_candidate* first = source[pick(rng)];
    for (int i = 1; i < 3; ++i)
    {
        const auto* x = source[pick(rng)];
        if (fitness(x) < fitness(first))
            first = x;
    }
    p.mode = proposal_mode::improve;
    p.parent = *first;

    // Crossover: with probability crossover_rate, a second parent as different as possible among
    // the better half (migrants from other islands every migration_interval iterations).
    const bool migrate = options().migration_interval > 0 && ctx.iteration > 0 &&
                         ctx.iteration % options().migration_interval == 0 && !foreign.empty();
    const auto& mates = migrate ? foreign : source;
    if (std::uniform_real_distribution<double>(0, 1)(rng) < options().crossover_rate &&
        mates.size() >= (migrate ? 1u : 2u))
    {
        const std::size_t half = std::min(mates.size(), std::max<std::size_t>(2, (mates.size() + 1) / 2));
        const evaluated_candidate* second = nullptr;
        int best_distance = -1;
        for (std::size_t i = 0; i < half; ++i)
        {
            if (mates[i]->id == first->id)
                continue;
            const int d = feats.at(mates[i]->id).distance(feats.at(first->id));
            if (d > best_distance)
            {
                best_distance = d;
                second = mates[i];
            }
        }
        if (second)
        {
            p.mode = proposal_mode::crossover;
            p.second_parent = *second;
        }
    }
    return p;
}

std::unique_ptr<llm_strategy> make_llm_strategy_of_kind(std::shared_ptr<llm::model_client> client,
                                                        llm_strategy_options opts,
                                                        const workload& w,
                                                        std::shared_ptr<const llm::redactor> redact)
{
    if (opts.kind == "refine")
        return std::make_unique<refine_strategy>(std::move(client), std::move(opts), w, std::move(redact));
    if (opts.kind == "beam")
        return std::make_unique<beam_strategy>(std::move(client), std::move(opts), w, std::move(redact));
    if (opts.kind == "evolve")
        return std::make_unique<evolve_strategy>(std::move(client), std::move(opts), w, std::move(redact));
    throw user_error("--strategy " + opts.kind + ": unknown strategy (refine, beam, evolve)");
}

}  // namespace warpsmith
