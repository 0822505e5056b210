#pragma once

// Which local architecture note (docs/guidance/architectures/) the nvidia_docs tool serves for a
// device, chosen by its compute capability: the note of the newest architecture at or below it,
// within the range the notes cover (7.0 up to, not including, 11.0). So 7.2 (Xavier) reads the
// Volta note, 8.7 (Orin) the sm_86 one, 10.3 the sm_100 one; 6.x and 12.x get none. Plain
// functions, tested without files (tests/agents/llm/test_llm_feedback.cpp).

#include <boost/json/object.hpp>

#include <optional>
#include <span>
#include <string>

namespace warpsmith::llm
{

struct compute_capability
{
    int major = 0;
    int minor = 0;
    /// 70 for 7.0, 100 for 10.0.
    int number() const { return major * 10 + minor; }
    std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
};

struct architecture_note
{
    compute_capability first;  ///< The lowest compute capability the note is written for.
    const char* stem;          ///< File name in docs/guidance/architectures without ".md".
    const char* family;        ///< "Volta", "Hopper", ...
};

/// Every note, oldest architecture first.
std::span<const architecture_note> architecture_notes();

/// The device's compute capability from `warpsmith device-info` JSON: "compute_capability": [9, 0]
/// (or "9.0"), else "arch": "sm_90" / "sm_90a" / "sm_100a". nullopt when neither is readable.
std::optional<compute_capability> compute_capability_of(const boost::json::object& device);

/// The note for a compute capability (see the header comment), or nullptr outside 7.0 to 10.x.
const architecture_note* architecture_note_for(compute_capability cc);

}  // namespace warpsmith::llm
