#include "agents/llm/providers/replay_client.hpp"

#include "harness/core/error.hpp"
#include "harness/core/log.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace warpsmith::llm
{

namespace fs = std::filesystem;

replay_client::replay_client(const fs::path& run, std::chrono::milliseconds order_grace)
    : order_grace_(order_grace)
{
    std::error_code ec;
    fs::path dir = run;
    if (fs::is_directory(run / "llm", ec))
        dir = run / "llm";
    else if (!fs::is_directory(run, ec))
        throw user_error("--replay-from " + run.string() + ": no such run directory");
    source_ = dir.string();
    int count = 0;
    for (auto& r : read_records(dir))
    {
        if (!r.ok)
            continue;
        if (model_.empty())
            model_ = r.model;
        if (r.branch >= 0)  // inference runs alone before the search (and not at all with --workload)
            unserved_.insert(r.seq);
        queues_[r.branch].push_back(std::move(r));
        ++count;
    }
    if (count == 0)
        throw user_error("--replay-from " + run.string() + ": " + dir.string() +
                         " holds no recorded model answers");
    // A Chat Completions run that fell back to fenced blocks recorded answers in that form; the
    // parser reads both forms, so the prompt flavour does not change what is served.
    structured_ = true;
}

boost::asio::awaitable<model_response> replay_client::complete(model_request req)
{
    auto& q = queues_[req.branch];
    const std::string who =
        req.branch < 0 ? std::string("workload inference") : "branch " + std::to_string(req.branch);
    if (q.empty())
        throw replay_exhausted("replay: " + source_ + " has no more recorded answers for " + who + " (" +
                               std::to_string(served_[req.branch]) + " served)");
    recorded_exchange rec = std::move(q.front());
    q.pop_front();
    ++served_[req.branch];
    // Hold the answer until the recorded answers before it are out (see the header).
    if (rec.branch >= 0 && !unserved_.empty() && *unserved_.begin() < rec.seq)
    {
        boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
        const auto deadline = std::chrono::steady_clock::now() + order_grace_;
        while (!unserved_.empty() && *unserved_.begin() < rec.seq &&
               std::chrono::steady_clock::now() < deadline)
        {
            timer.expires_after(std::chrono::milliseconds(1));
            co_await timer.async_wait(boost::asio::use_awaitable);
        }
        if (!unserved_.empty() && *unserved_.begin() < rec.seq)
        {
            if (!warned_order_)
                log_warn("replay: " + who + " waited " + std::to_string(order_grace_.count()) +
                         " ms for recorded answer " + std::to_string(*unserved_.begin()) +
                         " (served before " + rec.file +
                         " in the recorded run); serving out of the recorded order");
            warned_order_ = true;
            // The run has diverged: nobody asks for those answers now, so no later answer waits for them.
            unserved_.erase(unserved_.begin(), unserved_.lower_bound(rec.seq));
        }
    }
    unserved_.erase(rec.seq);
    if ((rec.request_digest != request_digest(req) || rec.purpose != req.purpose) &&
        warned_.insert(req.branch).second)
        log_warn("replay: request " + std::to_string(served_[req.branch]) + " of " + who + " (" +
                 req.purpose + ") differs from the recorded one " + rec.file + " (" + rec.purpose +
                 "); serving the recorded answers in order anyway");

    exchange_trace trace;
    trace.provider = "replay";
    trace.url = source_ + "/" + rec.file;
    trace.t_send = std::chrono::system_clock::now();
    trace.t_first_byte = trace.t_send;
    trace.t_complete = trace.t_send;
    trace.status = 200;
    trace.attempts = 1;
    trace.request_body = boost::json::object{{"replayed_from", rec.file}};
    model_response resp = std::move(rec.response);
    resp.usage.cost_usd = 0;
    resp.trace = trace;
    resp.record = notify(req, &resp, trace);
    co_return resp;
}

std::map<int, std::size_t> replay_client::remaining() const
{
    std::map<int, std::size_t> out;
    for (const auto& [b, q] : queues_)
        out[b] = q.size();
    return out;
}

}  // namespace warpsmith::llm
