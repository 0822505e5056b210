#include "engine/report/png_codec.hpp"

#include "harness/core/error.hpp"

#include <cstring>
#include <png.h>
#include <stdexcept>

namespace warpsmith::report
{

std::string encode_png(const raster_image& image)
{
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = static_cast<png_uint_32>(image.width());
    img.height = static_cast<png_uint_32>(image.height());
    img.format = PNG_FORMAT_RGB;
    const png_int_32 stride = image.width() * 3;
    png_alloc_size_t size = 0;
    // First call: the size needed; second call: the bytes.
    if (!png_image_write_to_memory(&img, nullptr, &size, 0, image.pixels().data(), stride, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + img.message);
    std::string out(size, '\0');
    if (!png_image_write_to_memory(&img, out.data(), &size, 0, image.pixels().data(), stride, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + img.message);
    out.resize(size);
    png_image_free(&img);
    return out;
}

raster_image decode_png(std::string_view bytes, std::string_view origin)
{
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, bytes.data(), bytes.size()))
        throw user_error(std::string(origin) + ": not a PNG file: " + img.message);
    img.format = PNG_FORMAT_RGB;
    raster_image out(static_cast<int>(img.width), static_cast<int>(img.height), rgb{});
    if (!png_image_finish_read(
            &img, nullptr, out.pixels().data(), static_cast<png_int_32>(img.width * 3), nullptr))
    {
        const std::string msg = img.message;
        png_image_free(&img);
        throw user_error(std::string(origin) + ": not a PNG file: " + msg);
    }
    return out;
}

}  // namespace warpsmith::report
