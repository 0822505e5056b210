#pragma once

// The scripted provider (SPEC §5 "scripted"; format in docs/engine.md, "Scripted provider"): candidates come
// from a directory of files instead of a model — bring-your-own candidates, tests and benchmarks.
//
//   DIR/*.cu                 one candidate each, proposed in file-name order
//   DIR/<stem>.json          optional sidecar: candidate fields except the source ("entry",
//                            "launch", "overrides", "defines", "options") plus "rationale";
//                            missing fields default to the workload's entry and launch plan
//
// Each propose() waits the simulated model latency, then takes the next file not yet proposed
// (so a proposal cancelled while "waiting on the model" consumes nothing); a repair request just
// takes the next file; nullopt once every file has been proposed. Every proposal carries
// meta {"file": "<name>.cu"}; observe() and restore() mark the files of recorded candidates as
// used, so a resumed run never proposes a file twice.

#include "agents/strategy.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace warpsmith
{

/// How a provider waits out a simulated latency. Empty: an Asio steady timer on the awaiting
/// coroutine's executor. Tests and the pipeline benchmark bind a virtual or scaled clock here.
using sleep_function = std::function<boost::asio::awaitable<void>(std::chrono::nanoseconds)>;

struct scripted_options
{
    std::filesystem::path dir;
    std::chrono::nanoseconds latency{0};  ///< Simulated model latency per proposal.
    sleep_function sleep;
};

class scripted_strategy final : public strategy
{
public:
    /// Reads every candidate file and sidecar now, so that a malformed one is reported before the
    /// run starts. Throws user_error naming the directory or file: missing directory, no .cu file,
    /// unreadable file, a sidecar that is not a JSON object, an unknown sidecar key, a bad field.
    scripted_strategy(const workload& w, scripted_options opts);

    std::string name() const override { return "scripted"; }
    boost::asio::awaitable<std::optional<proposal>> propose(proposal_context ctx) override;
    void observe(const evaluated_candidate& c) override;

    std::size_t size() const { return entries_.size(); }
    std::size_t remaining() const;
    const std::string& file_name(std::size_t i) const { return entries_.at(i).file; }

private:
    struct entry
    {
        std::string file;
        proposal prop;
        bool used = false;
    };

    std::vector<entry> entries_;
    scripted_options opts_;
};

}  // namespace warpsmith
