#include "harness/workload/input_generator.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>
#include <vector>

namespace warpsmith
{

std::uint64_t splitmix64_mix(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t fnv1a64(std::string_view s)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : s)
    {
        h ^= c;
        h *= 0x100000001B3ull;
    }
    return h;
}

std::uint64_t buffer_seed(std::uint64_t case_seed, std::string_view buffer_name)
{
    return splitmix64_mix(case_seed ^ fnv1a64(buffer_name));
}

std::uint64_t stream_draw(std::uint64_t seed, std::uint64_t k)
{
    return splitmix64_mix(seed + (k + 1) * 0x9E3779B97F4A7C15ull);
}

std::uint64_t derived_case_seed(std::uint64_t workload_seed, std::string_view case_name)
{
    return splitmix64_mix(workload_seed ^ fnv1a64(case_name));
}

namespace
{

// The same double as 2 * M_PI: doubling is exact, so 2*pi in any language gives these bits.
constexpr double two_pi = 6.283185307179586;

inline double unit_interval(std::uint64_t draw)
{
    return static_cast<double>(draw >> 11) * 0x1p-53;
}

template <class T>
inline void store(char* out, std::int64_t i, T v)
{
    if constexpr (std::endian::native == std::endian::big)
    {
        unsigned char bytes[sizeof(T)];
        std::memcpy(bytes, &v, sizeof(T));
        std::reverse(bytes, bytes + sizeof(T));
        std::memcpy(out + i * static_cast<std::int64_t>(sizeof(T)), bytes, sizeof(T));
    }
    else
    {
        std::memcpy(out + i * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
    }
}

std::string buffer_prefix(std::string_view buffer)
{
    return "buffer '" + std::string(buffer) + "': ";
}

std::string number_text(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

// Runs body(begin, end) over [0, count), split across threads for large buffers. Each element
// depends only on its index, so the bytes are the same however the range is split. Errors from
// the lowest chunk win, which is the error of the lowest failing element.
template <class Body>
void parallel_for(std::int64_t count, Body&& body)
{
    constexpr std::int64_t min_chunk = std::int64_t{1} << 18;
    const std::int64_t hw = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
    const std::int64_t chunks =
        std::clamp<std::int64_t>(count / min_chunk, 1, std::min<std::int64_t>(hw, 32));
    if (chunks == 1)
    {
        body(std::int64_t{0}, count);
        return;
    }
    const std::int64_t per = (count + chunks - 1) / chunks;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(chunks));
    auto run_chunk = [&](std::int64_t k)
    {
        try
        {
            const std::int64_t b = k * per;
            body(b, std::min(count, b + per));
        }
        catch (...)
        {
            errors[static_cast<std::size_t>(k)] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    std::vector<std::int64_t> inline_chunks{0};
    for (std::int64_t k = 1; k < chunks; ++k)
    {
        try
        {
            threads.emplace_back(run_chunk, k);
        }
        catch (const std::system_error&)
        {
            inline_chunks.push_back(k);  // No thread to be had: do it here instead.
        }
    }
    for (auto k : inline_chunks)
        run_chunk(k);
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
    {
        if (e)
            std::rethrow_exception(e);
    }
}

// Rounds a double to nearest (ties to even) and stores it as the integer T, or throws when the
// result is outside T's range.
template <class T, class Value>
void fill_integer_from_double(
    char* out, std::int64_t b, std::int64_t e, Value& value, dtype t, std::string_view buffer)
{
    constexpr int bits = std::numeric_limits<T>::digits;  // 7 for int8, 8 for uint8, 63 for int64
    const double lower = std::numeric_limits<T>::is_signed ? -std::ldexp(1.0, bits) : 0.0;
    const double upper_exclusive = std::ldexp(1.0, bits);
    for (std::int64_t i = b; i < e; ++i)
    {
        const double raw = value(i);
        const double r = std::nearbyint(raw);
        if (!(r >= lower && r < upper_exclusive))
        {
            throw user_error(buffer_prefix(buffer) + "element " + std::to_string(i) + " is " +
                             number_text(raw) + ", out of range for " + std::string(to_string(t)));
        }
        store<T>(out, i, static_cast<T>(r));
    }
}

// Fills elements [b, e) of a buffer of type t from a double-valued function of the index.
template <class Value>
void fill_from_double(
    dtype t, char* out, std::int64_t b, std::int64_t e, Value&& value, std::string_view buffer)
{
    switch (t)
    {
        case dtype::float16:
            for (std::int64_t i = b; i < e; ++i)
                store<std::uint16_t>(out, i, double_to_half_bits(value(i)));
            return;
        case dtype::bfloat16:
            for (std::int64_t i = b; i < e; ++i)
                store<std::uint16_t>(out, i, double_to_bfloat16_bits(value(i)));
            return;
        case dtype::float32:
            for (std::int64_t i = b; i < e; ++i)
                store<float>(out, i, static_cast<float>(value(i)));
            return;
        case dtype::float64:
            for (std::int64_t i = b; i < e; ++i)
                store<double>(out, i, value(i));
            return;
        case dtype::int8:
            return fill_integer_from_double<std::int8_t>(out, b, e, value, t, buffer);
        case dtype::uint8:
            return fill_integer_from_double<std::uint8_t>(out, b, e, value, t, buffer);
        case dtype::int16:
            return fill_integer_from_double<std::int16_t>(out, b, e, value, t, buffer);
        case dtype::int32:
            return fill_integer_from_double<std::int32_t>(out, b, e, value, t, buffer);
        case dtype::uint32:
            return fill_integer_from_double<std::uint32_t>(out, b, e, value, t, buffer);
        case dtype::int64:
            return fill_integer_from_double<std::int64_t>(out, b, e, value, t, buffer);
        case dtype::uint64:
            return fill_integer_from_double<std::uint64_t>(out, b, e, value, t, buffer);
    }
}

// randint: v = lo + (d(i) mod (hi - lo + 1)), exact in 64-bit two's complement arithmetic.
struct randint_stream
{
    std::uint64_t seed;
    std::int64_t lo;
    std::uint64_t range;  ///< hi - lo + 1; 0 stands for the full 2^64.

    std::int64_t operator()(std::int64_t i) const
    {
        const std::uint64_t d = stream_draw(seed, static_cast<std::uint64_t>(i));
        const std::uint64_t offset = range == 0 ? d : d % range;
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
    }
};

template <class T>
void fill_integer_exact(char* out, std::int64_t b, std::int64_t e, const randint_stream& s)
{
    for (std::int64_t i = b; i < e; ++i)
        store<T>(out, i, static_cast<T>(s(i)));
}

std::int64_t checked_integer(double x, std::string_view what, std::string_view buffer)
{
    if (!(x == std::floor(x)) || !(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
        throw user_error(buffer_prefix(buffer) + std::string(what) + " must be an integer, got " +
                         number_text(x));
    return static_cast<std::int64_t>(x);
}

void generate_randint(dtype t,
                      std::uint64_t seed,
                      std::int64_t lo,
                      std::int64_t hi,
                      std::int64_t count,
                      char* out,
                      std::string_view buffer)
{
    if (lo > hi)
    {
        throw user_error(buffer_prefix(buffer) + "randint lo " + std::to_string(lo) + " is greater than hi " +
                         std::to_string(hi));
    }
    const randint_stream s{seed, lo, static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1};
    if (is_floating(t))
    {
        parallel_for(count,
                     [&](std::int64_t b, std::int64_t e)
                     {
                         fill_from_double(
                             t, out, b, e, [&](std::int64_t i) { return static_cast<double>(s(i)); }, buffer);
                     });
        return;
    }
    // Every value lies in [lo, hi], so checking the bounds once checks every element.
    const bool is_unsigned = !is_signed_integer(t);
    const int bits = static_cast<int>(size_of(t)) * 8;
    const bool fits =
        is_unsigned ? (lo >= 0 && (bits == 64 || static_cast<std::uint64_t>(hi) < (std::uint64_t{1} << bits)))
                    : (bits == 64 ||
                       (lo >= -(std::int64_t{1} << (bits - 1)) && hi < (std::int64_t{1} << (bits - 1))));
    if (!fits)
    {
        throw user_error(buffer_prefix(buffer) + "range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "] does not fit " + std::string(to_string(t)));
    }
    parallel_for(count,
                 [&](std::int64_t b, std::int64_t e)
                 {
                     switch (t)
                     {
                         case dtype::int8:
                             return fill_integer_exact<std::int8_t>(out, b, e, s);
                         case dtype::uint8:
                             return fill_integer_exact<std::uint8_t>(out, b, e, s);
                         case dtype::int16:
                             return fill_integer_exact<std::int16_t>(out, b, e, s);
                         case dtype::int32:
                             return fill_integer_exact<std::int32_t>(out, b, e, s);
                         case dtype::uint32:
                             return fill_integer_exact<std::uint32_t>(out, b, e, s);
                         case dtype::int64:
                             return fill_integer_exact<std::int64_t>(out, b, e, s);
                         case dtype::uint64:
                             return fill_integer_exact<std::uint64_t>(out, b, e, s);
                         default:
                             return;
                     }
                 });
}

void read_input_file(
    const input_spec& spec, std::int64_t count, dtype t, std::string& out, std::string_view buffer)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(spec.path, ec);
    const std::string expected = std::to_string(out.size()) + " bytes (" + std::to_string(count) + " " +
                                 std::string(to_string(t)) + " elements)";
    if (ec)
        throw user_error(buffer_prefix(buffer) + "cannot read file '" + spec.path.string() + "' (" +
                         ec.message() + ")");
    if (size != out.size())
    {
        throw user_error(buffer_prefix(buffer) + "file '" + spec.path.string() + "' holds " +
                         std::to_string(size) + " bytes, expected " + expected);
    }
    std::ifstream in(spec.path, std::ios::binary);
    if (!in.read(out.data(), static_cast<std::streamsize>(out.size())))
        throw user_error(buffer_prefix(buffer) + "cannot read file '" + spec.path.string() + "'");
    if (!spec.sha256.empty() && sha256_hex(out) != spec.sha256)
        throw user_error(buffer_prefix(buffer) + "file '" + spec.path.string() +
                         "' changed since the workload was loaded (its sha256 differs)");
}

}  // namespace

std::string generate_input(
    dtype t, const input_spec& spec, std::uint64_t seed, std::int64_t count, std::string_view buffer_name)
{
    if (count < 0)
        throw user_error(buffer_prefix(buffer_name) + "negative element count " + std::to_string(count));
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<std::int64_t>(size_of(t)), &bytes))
        throw user_error(buffer_prefix(buffer_name) + std::to_string(count) + " elements is too many bytes");
    std::string out(static_cast<std::size_t>(bytes), '\0');
    char* data = out.data();

    switch (spec.kind)
    {
        case input_kind::uniform:
        {
            if (!is_floating(t))
            {
                // Integer buffers: uniform over the integers in [lo, hi], i.e. randint with rounded bounds.
                const std::int64_t lo = checked_integer(std::nearbyint(spec.lo), "uniform lo", buffer_name);
                const std::int64_t hi = checked_integer(std::nearbyint(spec.hi), "uniform hi", buffer_name);
                generate_randint(t, seed, lo, hi, count, data, buffer_name);
                break;
            }
            const double lo = spec.lo;
            const double span = spec.hi - spec.lo;
            parallel_for(count,
                         [&](std::int64_t b, std::int64_t e)
                         {
                             fill_from_double(
                                 t,
                                 data,
                                 b,
                                 e,
                                 [&](std::int64_t i) {
                                     return lo + span * unit_interval(
                                                            stream_draw(seed, static_cast<std::uint64_t>(i)));
                                 },
                                 buffer_name);
                         });
            break;
        }
        case input_kind::normal:
        {
            const double mean = spec.mean;
            const double stddev = spec.stddev;
            parallel_for(
                count,
                [&](std::int64_t b, std::int64_t e)
                {
                    fill_from_double(
                        t,
                        data,
                        b,
                        e,
                        [&](std::int64_t i)
                        {
                            const auto k = static_cast<std::uint64_t>(i) * 2;
                            const double u1 = static_cast<double>((stream_draw(seed, k) >> 11) + 1) * 0x1p-53;
                            const double u2 = unit_interval(stream_draw(seed, k + 1));
                            return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
                        },
                        buffer_name);
                });
            break;
        }
        case input_kind::randint:
        {
            const std::int64_t lo = checked_integer(spec.lo, "randint lo", buffer_name);
            const std::int64_t hi = checked_integer(spec.hi, "randint hi", buffer_name);
            generate_randint(t, seed, lo, hi, count, data, buffer_name);
            break;
        }
        case input_kind::iota:
        {
            const double start = spec.start;
            const double step = spec.step;
            parallel_for(count,
                         [&](std::int64_t b, std::int64_t e)
                         {
                             fill_from_double(
                                 t,
                                 data,
                                 b,
                                 e,
                                 [&](std::int64_t i) { return start + static_cast<double>(i) * step; },
                                 buffer_name);
                         });
            break;
        }
        case input_kind::constant:
        {
            const double value = spec.value;
            parallel_for(count,
                         [&](std::int64_t b, std::int64_t e)
                         {
                             fill_from_double(
                                 t, data, b, e, [&](std::int64_t) { return value; }, buffer_name);
                         });
            break;
        }
        case input_kind::file:
            read_input_file(spec, count, t, out, buffer_name);
            break;
    }
    return out;
}

std::map<std::string, std::string> generate_case_inputs(const workload& w,
                                                        const workload_case& c,
                                                        std::uint64_t case_seed)
{
    std::map<std::string, std::string> out;
    for (const auto& p : w.sig.params)
    {
        if (!p.is_input())
            continue;
        const std::int64_t count = w.buffer_count(p, c);
        try
        {
            out.emplace(
                p.name,
                generate_input(p.type, c.input_for(p), buffer_seed(case_seed, p.name), count, p.name));
        }
        catch (const user_error& ex)
        {
            throw user_error("workload '" + w.name + "', case '" + c.name + "': " + ex.what());
        }
    }
    return out;
}

}  // namespace warpsmith
