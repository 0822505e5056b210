#pragma once

// A small RGB raster with the few drawing operations heatmap.png needs: filled and outlined
// rectangles, hatching, straight lines and text in the built-in 5x7 font (bitmap_font.hpp), each
// glyph pixel drawn as a scale x scale block. Everything is clipped to the image.

#include "engine/report/color_scale.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace warpsmith::report
{

class raster_image
{
public:
    raster_image() = default;
    raster_image(int width, int height, rgb background);

    int width() const { return width_; }
    int height() const { return height_; }
    /// Row-major RGB bytes, 3 per pixel.
    const std::vector<std::uint8_t>& pixels() const { return pixels_; }
    std::vector<std::uint8_t>& pixels() { return pixels_; }

    rgb at(int x, int y) const;
    void set(int x, int y, rgb c);
    void fill_rect(int x, int y, int w, int h, rgb c);
    /// An outline of the given thickness drawn inside the rectangle.
    void stroke_rect(int x, int y, int w, int h, int thickness, rgb c);
    /// Diagonal lines (bottom-left to top-right) every `spacing` pixels over the rectangle.
    void hatch_rect(int x, int y, int w, int h, int spacing, int thickness, rgb line);
    /// A line from (x0, y0) to (x1, y1), `thickness` pixels wide (Bresenham, square pen).
    void line(int x0, int y0, int x1, int y1, int thickness, rgb c);
    /// Text with its top-left corner at (x, y); returns the x after the last glyph.
    int text(int x, int y, std::string_view s, int scale, rgb c);
    /// Width in pixels of text at scale.
    static int text_width(std::string_view s, int scale);

private:
    int width_ = 0;
    int height_ = 0;
    std::vector<std::uint8_t> pixels_;
};

}  // namespace warpsmith::report
