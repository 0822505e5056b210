#pragma once

// The tools offered to the model during a proposal exchange (SPEC §5 "Tools"):
//   gpu_properties {}                         the device summary (no arguments)
//   compile {kernel_source, entry, compile_options?, defines?}
//                                             NVRTC through the engine's compile pool: compiled,
//                                             error, log excerpt, registers/spills/shared memory;
//                                             never timed
//   history {id}                              an earlier candidate: source, launch plan, per-case
//                                             times, speedup, failure, resources
//   nvidia_docs {topic}                       (when enabled) the guidance notes in docs/guidance/,
//                                             "architecture": the note on the device's architecture
//   profile {id, case?}                       (optimize --use-nsight) Nsight Compute counters of a
//                                             valid candidate on one case (docs/nsight.md)
// Arguments that are not valid JSON, or miss a field, give an {"error": "..."} result the model
// can read; a tool never throws for the model's mistakes. Definitions and argument handling are
// plain functions; only compile awaits (strategy_services::compile).

#include "agents/llm/model_types.hpp"
#include "agents/strategy.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::llm
{

class tool_executor
{
public:
    virtual ~tool_executor() = default;
    virtual std::vector<tool_definition> definitions() const = 0;
    /// The tool's result as JSON text. Awaitable on the io_context; never throws for bad
    /// arguments (infrastructure failures of compile propagate).
    virtual boost::asio::awaitable<std::string> execute(const tool_call& call) = 0;
};

std::vector<tool_definition> kernel_tool_definitions(bool nvidia_docs, bool profile = false);

/// A short JSON summary of `warpsmith device-info` for prompts and the gpu_properties tool.
boost::json::object device_summary(const boost::json::object& device);

/// The history tool's answer for one candidate.
boost::json::object candidate_details(const evaluated_candidate& c,
                                      const std::map<std::string, double>& reference_us);

/// The first lines of a compile log that matter (errors first), at most max_bytes.
std::string log_excerpt(const std::string& log, std::size_t max_bytes = 2500);

/// Topics of docs/guidance (file stems) and the text of one; used by nvidia_docs.
std::vector<std::string> guidance_topics(const std::filesystem::path& dir);
std::optional<std::string> guidance_text(const std::filesystem::path& dir, const std::string& topic);
/// The nvidia_docs topic "architecture": the note in dir/architectures chosen by the device's
/// compute capability (architecture_notes.hpp), after a line naming it; nullopt when the device's
/// compute capability is unknown or outside the notes' range.
std::optional<std::string> architecture_guidance(const std::filesystem::path& dir,
                                                 const boost::json::object& device);
/// $WARPSMITH_GUIDANCE_DIR, else guidance/ of the data directory (harness/core/data_directory.hpp:
/// <prefix>/share/warpsmith installed, links into the source tree in a build), else docs/guidance
/// under the working directory.
std::filesystem::path default_guidance_dir();

struct kernel_tools_context
{
    boost::json::object device;
    const std::vector<evaluated_candidate>* history = nullptr;  ///< The engine's, read at call time.
    std::map<std::string, double> reference_median_us;
    strategy_services* services = nullptr;  ///< Null: compile answers an error.
    std::string arch;                       ///< "" -> the engine decides.
    bool nvidia_docs = false;
    std::filesystem::path guidance_dir;
    bool profile = false;  ///< The profile tool (services->can_profile()).
};

class kernel_tools final : public tool_executor
{
public:
    explicit kernel_tools(kernel_tools_context ctx) : ctx_(std::move(ctx)) {}
    std::vector<tool_definition> definitions() const override
    {
        return kernel_tool_definitions(ctx_.nvidia_docs, ctx_.profile);
    }
    boost::asio::awaitable<std::string> execute(const tool_call& call) override;

private:
    kernel_tools_context ctx_;
};

}  // namespace warpsmith::llm
