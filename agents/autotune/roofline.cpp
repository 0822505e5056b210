#include "agents/autotune/roofline.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/workload_parse.hpp"

#include <algorithm>
#include <cmath>

namespace warpsmith::autotune
{

namespace json = boost::json;

namespace
{

/// FP32 lanes per SM by compute capability: 64 on sm_60 (P100), sm_70/72 (Volta), sm_75 (Turing)
/// and sm_80 (A100); 128 on sm_61, sm_86, sm_87, sm_89 (Ada), sm_90 (Hopper) and later.
double fp32_lanes_per_sm(const std::string& arch)
{
    int cc = 0;
    for (char c : arch)
        if (c >= '0' && c <= '9')
            cc = cc * 10 + (c - '0');
    if (cc == 0)
        return 0;
    if (cc == 60 || (cc >= 70 && cc <= 80))
        return 64;
    return 128;
}

}  // namespace

// roofline.json is written by people (document style): "roofline.json: flops: must be an integer or
// an expression string, got 1.5".
roofline_spec roofline_spec::from_json(const json::value& v, std::string_view origin)
try
{
    const json_reader r(v, json_location(std::string(origin)), {"bytes", "flops", "note"});
    if (!r.find("bytes") && !r.find("flops"))
        throw user_error(std::string(origin) + ": needs \"bytes\" or \"flops\"");
    auto field = [&](std::string_view key)
    {
        const json::value* x = r.find(key);
        return x ? detail::parse_expression(*x, r.at(key)) : expression::constant(0);
    };
    roofline_spec s;
    s.bytes = field("bytes");
    s.flops = field("flops");
    s.note = r.optional_string("note").value_or("");
    return s;
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

roofline_spec roofline_spec::load(const std::filesystem::path& file)
{
    return from_json(read_json_file(file), file.string());
}

roofline_spec roofline_spec::from_workload(const roofline_work& r)
{
    roofline_spec s;
    s.bytes = r.bytes;
    s.flops = r.flops;
    s.note = r.note;
    return s;
}

std::optional<roofline_spec> roofline_spec::load_for(const workload& w)
{
    if (w.roofline)
        return from_workload(*w.roofline);
    const auto file = w.dir / "roofline.json";
    std::error_code ec;
    if (w.dir.empty() || !std::filesystem::exists(file, ec))
        return std::nullopt;
    return load(file);
}

json::object roofline_spec::to_json() const
{
    return json::object{{"bytes", bytes.text()}, {"flops", flops.text()}, {"note", note}};
}

roofline_ceilings roofline_ceilings::from_device(const json::object& device)
{
    roofline_ceilings c;
    std::string bw_source = "none", fp_source = "none";
    if (const json::object* m = lenient::object_at(device, "measured"))
    {
        if (auto bw = lenient::number_at(m, "copy_bandwidth_gbps"); bw && *bw > 0)
        {
            c.bandwidth_gbps = *bw;
            bw_source = "measured";
        }
        if (auto fp = lenient::number_at(m, "fp32_tflops"); fp && *fp > 0)
        {
            c.fp32_tflops = *fp;
            fp_source = "measured";
        }
    }
    if (c.bandwidth_gbps <= 0)
    {
        const auto mhz = lenient::number_at(device, "memory_clock_mhz");
        const auto bits = lenient::number_at(device, "memory_bus_bits");
        if (mhz && bits && *mhz > 0 && *bits > 0)
        {
            // Double data rate: two transfers per memory clock.
            c.bandwidth_gbps = 2 * *mhz * 1e6 * (*bits / 8) / 1e9;
            bw_source = "datasheet";
        }
    }
    if (c.fp32_tflops <= 0)
    {
        const auto sms = lenient::number_at(device, "sm_count");
        const auto mhz = lenient::number_at(device, "clock_mhz");
        const auto arch = lenient::string_at(device, "arch");
        const double lanes = arch ? fp32_lanes_per_sm(*arch) : 0;
        if (sms && mhz && lanes > 0)
        {
            // One FMA (two operations) per lane per clock.
            c.fp32_tflops = *sms * lanes * 2 * *mhz * 1e6 / 1e12;
            fp_source = "datasheet";
        }
    }
    c.source = bw_source == fp_source ? bw_source : bw_source + "+" + fp_source;
    if (const json::array* curve = lenient::array_at(lenient::object_at(device, "measured"), "cold_copy"))
    {
        for (const auto& p : *curve)
        {
            const json::object* o = lenient::object_at(&p);
            const auto bytes = lenient::number_at(o, "bytes");
            const auto gbps = lenient::number_at(o, "gbps");
            if (bytes && gbps && std::isfinite(*bytes) && std::isfinite(*gbps) && *bytes > 0 && *gbps > 0)
                c.cold_copy.push_back({*bytes, *gbps});
        }
        std::sort(c.cold_copy.begin(),
                  c.cold_copy.end(),
                  [](const cold_copy_point& a, const cold_copy_point& b) { return a.bytes < b.bytes; });
    }
    return c;
}

std::optional<double> roofline_ceilings::cold_copy_us(double bytes) const
{
    if (cold_copy.empty() || !(bytes > 0))
        return std::nullopt;
    double gbps = cold_copy.back().gbps;
    if (bytes <= cold_copy.front().bytes)
        gbps = cold_copy.front().gbps;
    else
        for (std::size_t i = 1; i < cold_copy.size(); ++i)
            if (bytes <= cold_copy[i].bytes)
            {
                const auto& a = cold_copy[i - 1];
                const auto& b = cold_copy[i];
                const double span = std::log2(b.bytes) - std::log2(a.bytes);
                const double t = span > 0 ? (std::log2(bytes) - std::log2(a.bytes)) / span : 1.0;
                gbps = a.gbps + t * (b.gbps - a.gbps);
                break;
            }
    // bytes / (GB/s * 1e3) microseconds.
    return bytes / (gbps * 1e3);
}

json::object roofline_ceilings::to_json() const
{
    json::object o{{"bandwidth_gbps", bandwidth_gbps}, {"fp32_tflops", fp32_tflops}, {"source", source}};
    if (!cold_copy.empty())
    {
        json::array curve;
        for (const auto& p : cold_copy)
            curve.push_back(json::object{{"bytes", p.bytes}, {"gbps", p.gbps}});
        o["cold_copy"] = std::move(curve);
    }
    return o;
}

json::object roofline_case::to_json(std::optional<double> time_us) const
{
    json::object o{{"bytes", bytes},
                   {"flops", flops},
                   {"memory_floor_us", memory_floor_us},
                   {"compute_floor_us", compute_floor_us},
                   {"floor_us", floor_us},
                   {"bound", bound}};
    if (cold_copy_us)
        o["cold_copy_us"] = *cold_copy_us;
    if (time_us && *time_us > 0)
    {
        o["time_us"] = *time_us;
        o["fraction"] = fraction(*time_us);
        if (const auto v = vs_cold_copy(*time_us))
            o["vs_cold_copy"] = *v;
        o["achieved_gbps"] = bytes / (*time_us * 1e3);
        o["achieved_tflops"] = flops / (*time_us * 1e6);
    }
    return o;
}

std::map<std::string, roofline_case> roofline_floors(const roofline_spec& spec,
                                                     const workload& w,
                                                     const roofline_ceilings& ceilings)
{
    std::map<std::string, roofline_case> out;
    for (const auto& c : w.cases)
    {
        roofline_case r;
        try
        {
            r.bytes = static_cast<double>(spec.bytes.evaluate(c.values));
            r.flops = static_cast<double>(spec.flops.evaluate(c.values));
        }
        catch (const expression_error& e)
        {
            throw user_error("roofline.json: case '" + c.name + "': " + e.what());
        }
        // bytes / (GB/s * 1e9) seconds = bytes / (GB/s * 1e3) microseconds.
        r.memory_floor_us = ceilings.bandwidth_gbps > 0 ? r.bytes / (ceilings.bandwidth_gbps * 1e3) : 0;
        r.compute_floor_us = ceilings.fp32_tflops > 0 ? r.flops / (ceilings.fp32_tflops * 1e6) : 0;
        r.floor_us = std::max(r.memory_floor_us, r.compute_floor_us);
        r.bound = r.compute_floor_us > r.memory_floor_us ? "compute" : "memory";
        if (r.bound == "memory")
            r.cold_copy_us = ceilings.cold_copy_us(r.bytes);
        out[c.name] = r;
    }
    return out;
}

json::object roofline_summary(const roofline_spec& spec,
                              const workload& w,
                              const json::object& device,
                              const std::map<std::string, double>& time_us,
                              bool cold_timing)
{
    auto ceilings = roofline_ceilings::from_device(device);
    if (!cold_timing)
        ceilings.cold_copy.clear();
    if (!ceilings.usable())
        return json::object{{"skipped", "the device reports no bandwidth or FP32 rate"}};
    const auto floors = roofline_floors(spec, w, ceilings);
    json::object cases;
    for (const auto& c : w.cases)
    {
        if (c.role != case_role::performance)
            continue;
        std::optional<double> t;
        if (auto it = time_us.find(c.name); it != time_us.end())
            t = it->second;
        cases[c.name] = floors.at(c.name).to_json(t);
    }
    return json::object{
        {"ceilings", ceilings.to_json()}, {"spec", spec.to_json()}, {"cases", std::move(cases)}};
}

}  // namespace warpsmith::autotune
