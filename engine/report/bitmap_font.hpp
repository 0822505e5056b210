#pragma once

// A 5x7 pixel font for printable ASCII (32..126), enough to label a raster heatmap without a font
// library (heatmap.png must render on machines without cairo or freetype). Glyphs are the classic
// HD44780-style 5x7 cells: five column bytes per glyph, bit 0 the top row;
// g, p, q and y descend two rows below the cell (glyph_drop).

#include <cstdint>

namespace warpsmith::report
{

inline constexpr int glyph_width = 5;
inline constexpr int glyph_height = 7;
inline constexpr int glyph_advance = 6;  ///< Width plus one column of spacing.

/// Rows a glyph is drawn below the others: g, p, q and y are stored one x-height up and drawn two
/// rows lower so that their descenders hang below the baseline.
int glyph_drop(char ch);

/// The five column bytes of ch; characters outside 32..126 render as '?'.
const std::uint8_t* glyph_columns(char ch);

}  // namespace warpsmith::report
