#pragma once

// Escaping text for the markup the reports write: SVG (XML) for the heatmap and the curves, HTML
// for report.html. Both escape & < > " ' the same way; XML 1.0 also forbids most control
// characters, which HTML tolerates.

#include <string>
#include <string_view>

namespace warpsmith::report
{

/// XML text and attribute escaping (& < > " '); control characters other than tab and newline
/// become spaces; bytes that are not UTF-8 and U+FFFE/U+FFFF become U+FFFD; invisible and
/// reordering characters (is_invisible_format: U+202E, U+200B, ...) are written out as \uNNNN.
std::string xml_escape(std::string_view s);

/// HTML text and attribute escaping (& < > " '); bytes that are not UTF-8 and U+FFFE/U+FFFF
/// become U+FFFD and invisible and reordering characters are written out as \uNNNN; everything
/// else is kept.
std::string html_escape(std::string_view s);

/// A relative path as a URL path ("profiles/c0007-4096 x.json" -> "profiles/c0007-4096%20x.json"):
/// letters, digits, - . _ ~ and / are kept, every other byte is percent-encoded.
std::string url_path_escape(std::string_view path);

}  // namespace warpsmith::report
