#include "engine/report/raster_image.hpp"

#include "engine/report/bitmap_font.hpp"

#include <algorithm>
#include <cstdlib>

namespace warpsmith::report
{

raster_image::raster_image(int width, int height, rgb background)
    : width_(std::max(1, width)), height_(std::max(1, height))
{
    pixels_.resize(static_cast<std::size_t>(width_) * height_ * 3);
    for (std::size_t i = 0; i < pixels_.size(); i += 3)
    {
        pixels_[i] = background.r;
        pixels_[i + 1] = background.g;
        pixels_[i + 2] = background.b;
    }
}

rgb raster_image::at(int x, int y) const
{
    if (x < 0 || y < 0 || x >= width_ || y >= height_)
        return {};
    const auto i = (static_cast<std::size_t>(y) * width_ + x) * 3;
    return rgb{pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void raster_image::set(int x, int y, rgb c)
{
    if (x < 0 || y < 0 || x >= width_ || y >= height_)
        return;
    const auto i = (static_cast<std::size_t>(y) * width_ + x) * 3;
    pixels_[i] = c.r;
    pixels_[i + 1] = c.g;
    pixels_[i + 2] = c.b;
}

void raster_image::fill_rect(int x, int y, int w, int h, rgb c)
{
    const int x0 = std::max(0, x), y0 = std::max(0, y);
    const int x1 = std::min(width_, x + w), y1 = std::min(height_, y + h);
    for (int yy = y0; yy < y1; ++yy)
        for (int xx = x0; xx < x1; ++xx)
            set(xx, yy, c);
}

void raster_image::stroke_rect(int x, int y, int w, int h, int thickness, rgb c)
{
    fill_rect(x, y, w, thickness, c);
    fill_rect(x, y + h - thickness, w, thickness, c);
    fill_rect(x, y, thickness, h, c);
    fill_rect(x + w - thickness, y, thickness, h, c);
}

void raster_image::hatch_rect(int x, int y, int w, int h, int spacing, int thickness, rgb line)
{
    if (spacing <= 0)
        return;
    const int x0 = std::max(0, x), y0 = std::max(0, y);
    const int x1 = std::min(width_, x + w), y1 = std::min(height_, y + h);
    for (int yy = y0; yy < y1; ++yy)
        for (int xx = x0; xx < x1; ++xx)
            if (((xx + yy) % spacing) < thickness)
                set(xx, yy, line);
}

void raster_image::line(int x0, int y0, int x1, int y1, int thickness, rgb c)
{
    const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    const int half = thickness / 2;
    for (;;)
    {
        fill_rect(x0 - half, y0 - half, thickness, thickness, c);
        if (x0 == x1 && y0 == y1)
            break;
        const int e2 = 2 * err;
        if (e2 >= dy)
        {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx)
        {
            err += dx;
            y0 += sy;
        }
    }
}

int raster_image::text(int x, int y, std::string_view s, int scale, rgb c)
{
    for (char ch : s)
    {
        const auto* cols = glyph_columns(ch);
        const int drop = glyph_drop(ch);
        for (int col = 0; col < glyph_width; ++col)
            for (int row = 0; row < glyph_height; ++row)
                if (cols[col] & (1u << row))
                    fill_rect(x + col * scale, y + (row + drop) * scale, scale, scale, c);
        x += glyph_advance * scale;
    }
    return x;
}

int raster_image::text_width(std::string_view s, int scale)
{
    return static_cast<int>(s.size()) * glyph_advance * scale;
}

}  // namespace warpsmith::report
