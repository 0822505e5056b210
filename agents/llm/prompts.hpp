#pragma once

// The fixed prompt texts, in one place so they read as prose (docs/prompts.md shows them with the
// parts that feedback.cpp fills in). {{name}} marks a value substituted by fill_template.

#include <map>
#include <string>
#include <string_view>

namespace warpsmith::llm::prompts
{

std::string_view system_role();    ///< Who the model is and what counts (speed, validity).
std::string_view contract();       ///< Device code only, extern "C" entry, ...
std::string_view answer_json();    ///< The answer as one JSON object (schema enforced).
std::string_view answer_fenced();  ///< The answer as a ```cuda block plus a ```json block.
std::string_view tools_note();     ///< How to use the tools.
std::string_view task_start();     ///< First round of a branch.
std::string_view task_improve();
std::string_view task_repair();
std::string_view task_crossover();
std::string_view answer_repair();     ///< {{problems}}, {{format}}
std::string_view inference_system();  ///< Workload inference (inference.cpp).
std::string_view inference_task();    ///< {{description}}, {{given}}, {{needed}}
std::string_view inference_repair();  ///< {{problems}}

/// Replaces every {{key}} with its value; unknown keys stay as they are.
std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace warpsmith::llm::prompts
