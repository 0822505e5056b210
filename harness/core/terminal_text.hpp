#pragma once

// Text for the user's terminal. Errors and log lines quote what others wrote: a workload's names, a
// model's answer (a refusal, a case name it made up), a worker's stderr. A terminal acts on the
// control characters in such text (ESC starts sequences that move the cursor, retitle the window or
// rewrite what was printed), so they are shown instead of sent.

#include <string>
#include <string_view>

namespace warpsmith
{

/// text with every control character other than newline and tab written out as \xNN: the C0
/// controls (ESC, BEL, CR, backspace, ...), DEL, and the C1 controls in their UTF-8 form
/// (U+0080..U+009F, which some terminals take as CSI and the like), and bytes that are not UTF-8
/// (a lone 0x9b is CSI in an 8-bit terminal). Characters shown as nothing or that reorder what
/// follows (is_invisible_format: U+202E, zero-width spaces, tag characters, ...) are written as
/// \uNNNN or \UNNNNNNNN. Everything else is kept as is. The terminal is assumed to read UTF-8: in
/// an 8-bit mode the continuation bytes of ordinary characters (U+201B is E2 80 9B) are C1 too.
std::string terminal_text(std::string_view text);

}  // namespace warpsmith
