#include "agents/providers/scripted_strategy.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/lenient.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

constexpr std::string_view sidecar_keys[] = {
    "entry", "launch", "overrides", "defines", "options", "rationale"};

proposal load_candidate(const workload& w, const fs::path& cu, const std::string& file)
{
    json::object cj;
    cj["source"] = read_text_file(cu);
    cj["entry"] = w.sig.entry;
    cj["launch"] = w.launch.to_json();
    std::string rationale = "scripted candidate " + file;

    auto sidecar = cu;
    sidecar.replace_extension(".json");
    std::error_code ec;
    if (fs::exists(sidecar, ec))
    {
        const auto v = read_json_file(sidecar);
        if (!v.is_object())
            throw user_error(sidecar.string() + ": must be a JSON object");
        for (const auto& kv : v.get_object())
        {
            const auto key = std::string_view(kv.key());
            if (std::find(std::begin(sidecar_keys), std::end(sidecar_keys), key) == std::end(sidecar_keys))
                throw user_error(sidecar.string() + ": unknown key '" + std::string(key) +
                                 "' (allowed: entry, launch, overrides, defines, options, rationale)");
            if (key == "rationale")
            {
                if (!kv.value().is_string())
                    throw user_error(sidecar.string() + ": 'rationale' must be a string");
                rationale = std::string(kv.value().get_string());
            }
            else
                cj[key] = kv.value();
        }
    }
    proposal p;
    p.cand = candidate::from_json(cj, cu.string());
    if (auto problem = p.cand.validate(w); !problem.empty())
        throw user_error(cu.string() + ": " + problem);
    p.rationale = std::move(rationale);
    p.meta = json::object{{"provider", "scripted"}, {"file", file}};
    return p;
}

}  // namespace

scripted_strategy::scripted_strategy(const workload& w, scripted_options opts) : opts_(std::move(opts))
{
    std::error_code ec;
    if (!fs::is_directory(opts_.dir, ec))
        throw user_error("--candidates " + opts_.dir.string() + ": no such directory");
    std::vector<fs::path> files;
    for (fs::directory_iterator it(opts_.dir, ec), end; !ec && it != end; it.increment(ec))
    {
        const auto ext = it->path().extension();
        // A candidates folder can come from anyone (a suite, a run's record): a link named a.cu
        // would put the file it points at into candidates/, the replay requests and the model's
        // prompts.
        if ((ext == ".cu" || ext == ".json") && it->is_symlink())
            throw user_error("--candidates " + opts_.dir.string() + ": " + it->path().filename().string() +
                             " is a symbolic link; candidates are read only from plain files");
        if (ext == ".cu" && it->is_regular_file())
            files.push_back(it->path());
    }
    if (ec)
        throw user_error("--candidates " + opts_.dir.string() + ": " + ec.message());
    if (files.empty())
        throw user_error("--candidates " + opts_.dir.string() + ": no .cu files");
    std::sort(files.begin(),
              files.end(),
              [](const fs::path& a, const fs::path& b)
              { return a.filename().string() < b.filename().string(); });
    for (const auto& f : files)
    {
        const auto name = f.filename().string();
        entries_.push_back(entry{name, load_candidate(w, f, name), false});
    }
}

std::size_t scripted_strategy::remaining() const
{
    return static_cast<std::size_t>(
        std::count_if(entries_.begin(), entries_.end(), [](const entry& e) { return !e.used; }));
}

asio::awaitable<std::optional<proposal>> scripted_strategy::propose(proposal_context ctx)
{
    if (remaining() == 0)
        co_return std::nullopt;
    if (opts_.latency.count() > 0)
    {
        if (opts_.sleep)
            co_await opts_.sleep(opts_.latency);
        else
        {
            asio::steady_timer timer(co_await asio::this_coro::executor);
            timer.expires_after(opts_.latency);
            co_await timer.async_wait(asio::use_awaitable);
        }
    }
    // The file is taken only now, after the "model" answered: a proposal cancelled while waiting
    // consumes nothing.
    auto it = std::find_if(entries_.begin(), entries_.end(), [](const entry& e) { return !e.used; });
    if (it == entries_.end())
        co_return std::nullopt;
    it->used = true;
    proposal p = it->prop;
    if (ctx.repair_of)
    {
        p.parent = ctx.repair_of->id;
        p.meta["repair_of"] = ctx.repair_of->id;
    }
    co_return p;
}

void scripted_strategy::observe(const evaluated_candidate& c)
{
    const auto file = lenient::string_at(c.meta, "file");
    if (!file)
        return;
    for (auto& e : entries_)
        if (e.file == *file)
            e.used = true;
}

}  // namespace warpsmith
