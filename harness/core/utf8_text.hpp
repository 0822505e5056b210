#pragma once

// UTF-8 for text from others. NVRTC logs quote a kernel's bytes, candidate files and workloads are
// read as given, and text is cut to excerpts by byte counts: any of these can leave bytes that are
// not UTF-8 (a character cut in half, a Latin-1 file). Boost.JSON writes such bytes as they are but
// refuses them when it reads, so a journal, a model request or a cache line holding them could no
// longer be read back. These functions cut at character boundaries and repair what is not UTF-8.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warpsmith
{

/// Length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), or 0 where the bytes there are
/// not one: a stray continuation byte, a truncated or overlong sequence, a surrogate, a value above
/// U+10FFFF.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

/// The code point of the well-formed sequence of length n at s[i].
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n);

/// Calls f(bytes, code_point) for each character of s in order: bytes is its well-formed sequence
/// (one byte for ASCII) and code_point its value, or bytes is a single byte that is not part of
/// one and code_point is empty. Every reader of text from others walks it this way.
template <class F>
void for_each_utf8(std::string_view s, F&& f)
{
    for (std::size_t i = 0; i < s.size();)
    {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0)
            f(s.substr(i++, 1), std::optional<char32_t>());
        else
        {
            f(s.substr(i, n), std::optional<char32_t>(utf8_code_point(s, i, n)));
            i += n;
        }
    }
}

/// The longest prefix of s of at most max_bytes bytes that does not end inside a character.
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

/// s with every byte that is not part of a well-formed sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

/// Whether c is a bidirectional formatting character (U+061C, U+200E/F, U+202A..U+202E,
/// U+2066..U+2069): text that contains one can be shown in another order than it is read.
bool is_bidi_control(char32_t c);

/// Whether c is shown as nothing, or moves what follows: the bidirectional controls, Unicode's
/// default-ignorable code points (zero-width spaces and joiners, U+2060..U+206F, the soft hyphen,
/// variation selectors, U+FEFF, Hangul fillers, the tag characters U+E0000..U+E0FFF that can spell
/// hidden ASCII), the line and paragraph separators U+2028/U+2029 and the interlinear annotation
/// marks U+FFF9..U+FFFB. Text for a person shows these as escapes (terminal_text, html_escape).
bool is_invisible_format(char32_t c);

/// "\uNNNN" for c up to U+FFFF, "\UNNNNNNNN" above: how terminals and reports show such a character.
std::string code_point_escape(char32_t c);

/// Serialized JSON made safe to write and to read back: inside strings, bytes that are not UTF-8
/// become \ufffd, and DEL, the C1 controls and the invisible and reordering characters
/// (is_invisible_format, U+2028/U+2029 among them) become \u escapes (the same values, but no raw control
/// reaches a terminal, a browser or a JavaScript reader). Outside strings serialized JSON is ASCII, so
/// nothing there changes.
std::string json_safe_text(std::string_view serialized);

}  // namespace warpsmith
