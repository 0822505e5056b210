#pragma once

// A CSV reader for what Nsight Compute prints with --csv (RFC 4180: comma-separated, fields in
// double quotes, "" inside quotes for a quote, CRLF or LF line ends). Lines ncu writes around
// its table ("==PROF== ...", "==WARNING== ...") are not CSV and are skipped, so the text of a
// whole `ncu --import ... --csv` run parses as is.

#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

using csv_row = std::vector<std::string>;

/// The rows of `text`, fields unquoted. Lines that start with "==" outside quotes and blank lines
/// are skipped. Throws std::invalid_argument on an unterminated quoted field.
std::vector<csv_row> parse_csv(std::string_view text);

}  // namespace warpsmith
