#pragma once

// PNG encoding and decoding of raster_image through libpng's simplified API (png_image, libpng
// 1.6): 8-bit RGB, no interlace. libpng is linked into the warpsmith program and this library only,
// never into warpsmith-worker; libpng16 is present on the GPU hosts (docs/reports.md).

#include "engine/report/raster_image.hpp"

#include <string>
#include <string_view>

namespace warpsmith::report
{

/// The PNG file bytes of an image. Throws std::runtime_error when libpng fails.
std::string encode_png(const raster_image& image);

/// Decodes PNG bytes (any colour type) to RGB. Throws user_error "<origin>: not a PNG file: ..."
/// when the bytes are not a readable PNG.
raster_image decode_png(std::string_view bytes, std::string_view origin);

}  // namespace warpsmith::report
