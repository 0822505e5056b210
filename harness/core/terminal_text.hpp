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
/// (a lone 0x9b is CSI in an 8-bit terminal). The bidirectional controls (U+202E and the like,
/// which make a terminal show text in another order than it is read) are written as \uNNNN.
/// Everything else is kept as is.
std::string terminal_text(std::string_view text);

}  // namespace warpsmith
