#pragma once

// How far from the physical limit a kernel is (SPEC §6; docs/autotune.md, "Roofline"). A workload
// states, per case, how many bytes a kernel must move at least and how many floating-point
// operations it must do, as expressions over the case values: in workload.json itself, as
// "roofline" (docs/workload-format.md), or in a sidecar file next to it:
//
//   roofline.json   {"bytes": "4*(M*K + K*N + M*N)", "flops": "2*M*N*K", "note": "..."}
//
// With the device's ceilings (measured copy bandwidth and FP32 rate from `device_info` with
// "measure": true, else the datasheet rates computed from clocks, bus width and SM count), the
// floor of a case is max(bytes / bandwidth, flops / FP32 rate) and a time reaches floor / time of
// the physical limit.

#include "harness/workload/expression.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith::autotune
{

struct roofline_spec
{
    expression bytes = expression::constant(0);
    expression flops = expression::constant(0);
    std::string note;

    /// {"bytes": expr, "flops": expr, "note": text}: bytes or flops (or both) required; each an
    /// integer or an expression string over case values. user_error "<origin>: <field>: ...".
    static roofline_spec from_json(const boost::json::value& v, std::string_view origin);
    /// The workload's own "roofline" when it has one, else <workload dir>/roofline.json when that
    /// exists.
    static std::optional<roofline_spec> load_for(const workload& w);
    /// The workload's "roofline" (already validated against its cases).
    static roofline_spec from_workload(const roofline_work& r);
    static roofline_spec load(const std::filesystem::path& file);
    boost::json::object to_json() const;
};

/// One point of the measured cold copy curve: a copy moving `bytes` (read + written) in bytes / gbps.
struct cold_copy_point
{
    double bytes = 0;
    double gbps = 0;
};

struct roofline_ceilings
{
    double bandwidth_gbps = 0;  ///< 1e9 bytes per second.
    double fp32_tflops = 0;     ///< 1e12 floating-point operations per second.
    std::string source;         ///< "measured", "datasheet" or "none" (each ceiling may differ:
                                ///< "measured+datasheet" when only one was measured).

    /// From device_info: measured.copy_bandwidth_gbps and measured.fp32_tflops when present, else
    /// 2 x memory_clock_mhz x memory_bus_bits / 8 and sm_count x FP32 lanes per SM (by arch) x 2
    /// x clock_mhz.
    /// Also measured.cold_copy's points (those with positive bytes and rate, by increasing bytes).
    static roofline_ceilings from_device(const boost::json::object& device);
    bool usable() const { return bandwidth_gbps > 0 || fp32_tflops > 0; }
    /// The measured cold copy curve, by increasing bytes; empty when the device did not measure it.
    std::vector<cold_copy_point> cold_copy;
    /// Microseconds a cold copy moving `bytes` takes: the rate interpolated linearly in log2(bytes)
    /// between the two nearest points, the end point's rate outside the curve. Nothing without a
    /// curve or bytes.
    std::optional<double> cold_copy_us(double bytes) const;
    boost::json::object to_json() const;
};

struct roofline_case
{
    double bytes = 0;
    double flops = 0;
    double memory_floor_us = 0;
    double compute_floor_us = 0;
    double floor_us = 0;
    std::string bound;  ///< "memory" or "compute".
    /// Memory-bound cases on a device with a cold copy curve: a cold copy of the same bytes (us).
    std::optional<double> cold_copy_us;

    /// floor / time: the fraction of the physical limit a time reaches (0 without a floor).
    double fraction(double time_us) const { return time_us > 0 ? floor_us / time_us : 0; }
    /// cold copy / time: how a time compares with a cold copy of the same bytes (above 1: faster).
    std::optional<double> vs_cold_copy(double time_us) const
    {
        return cold_copy_us && time_us > 0 ? std::optional<double>(*cold_copy_us / time_us) : std::nullopt;
    }
    boost::json::object to_json(std::optional<double> time_us = std::nullopt) const;
};

/// The floor of every case of w (user_error naming the case when an expression does not evaluate).
std::map<std::string, roofline_case> roofline_floors(const roofline_spec& spec,
                                                     const workload& w,
                                                     const roofline_ceilings& ceilings);

/// summary.json "roofline" (docs/autotune.md): {"ceilings", "spec", "cases": {case: floor, and with
/// a time in time_us the fraction of the physical limit it reaches}} over the performance cases,
/// with the ceilings of `device` (measured when it carries "measured"), or {"skipped": why} when
/// the device reports neither a bandwidth nor an FP32 rate. The cold copy curve is left out when
/// the times were not measured cold (cold_timing false): it compares only with cold timing.
boost::json::object roofline_summary(const roofline_spec& spec,
                                     const workload& w,
                                     const boost::json::object& device,
                                     const std::map<std::string, double>& time_us,
                                     bool cold_timing = true);

}  // namespace warpsmith::autotune
