#include "agents/llm/architecture_notes.hpp"

#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <array>
#include <charconv>

namespace warpsmith::llm
{

namespace json = boost::json;

namespace
{

constexpr std::array<architecture_note, 7> notes{{
    {{7, 0}, "sm_70", "Volta"},
    {{7, 5}, "sm_75", "Turing"},
    {{8, 0}, "sm_80", "Ampere (data-center)"},
    {{8, 6}, "sm_86", "Ampere (client and embedded)"},
    {{8, 9}, "sm_89", "Ada Lovelace"},
    {{9, 0}, "sm_90", "Hopper"},
    {{10, 0}, "sm_100", "Blackwell (data-center)"},
}};

/// The first notes past the newest architecture covered: a different major version (12.x client
/// Blackwell lacks tcgen05, for instance) is not described by the sm_100 note.
constexpr int first_uncovered = 110;

std::optional<int> leading_int(std::string_view s, std::size_t& pos)
{
    int v = 0;
    const auto* begin = s.data() + pos;
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec != std::errc() || end == begin)
        return std::nullopt;
    pos += static_cast<std::size_t>(end - begin);
    return v;
}

}  // namespace

std::span<const architecture_note> architecture_notes()
{
    return notes;
}

std::optional<compute_capability> compute_capability_of(const json::object& device)
{
    if (const auto* cc = lenient::value_at(device, "compute_capability"))
    {
        if (const auto* a = cc->if_array(); a && a->size() == 2 && (*a)[0].is_int64() && (*a)[1].is_int64())
            return compute_capability{static_cast<int>((*a)[0].get_int64()),
                                      static_cast<int>((*a)[1].get_int64())};
        if (const auto* s = cc->if_string())
        {
            const std::string_view text = *s;
            std::size_t pos = 0;
            const auto major = leading_int(text, pos);
            if (major && pos < text.size() && text[pos] == '.')
            {
                ++pos;
                if (const auto minor = leading_int(text, pos))
                    return compute_capability{*major, *minor};
            }
        }
    }
    if (const auto arch = lenient::string_at(device, "arch"))
    {
        // "sm_90", "sm_90a", "sm_100a": the last digit is the minor version.
        const std::string_view text = *arch;
        if (text.substr(0, 3) == "sm_")
        {
            std::size_t pos = 3;
            if (const auto n = leading_int(text, pos); n && *n >= 10)
                return compute_capability{*n / 10, *n % 10};
        }
    }
    return std::nullopt;
}

const architecture_note* architecture_note_for(compute_capability cc)
{
    const int n = cc.number();
    if (n < notes.front().first.number() || n >= first_uncovered)
        return nullptr;
    const architecture_note* chosen = nullptr;
    for (const auto& note : notes)
        if (note.first.number() <= n)
            chosen = &note;
    return chosen;
}

}  // namespace warpsmith::llm
