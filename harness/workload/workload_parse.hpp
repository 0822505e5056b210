#pragma once

// Internal to warpsmith_workload: the parts of workload::from_json, one file per concept
// (workload_signature.cpp, workload_cases.cpp, workload_kernels.cpp, workload_baselines.cpp), and the
// helpers they share. Each reads with json_reader and throws json_error naming the file and the
// field; workload::from_json (workload.cpp) turns that into user_error. Other parts should not
// include this header.

#include "harness/json/json_reader.hpp"
#include "harness/workload/workload.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpsmith::detail
{

inline constexpr double max_exact_integer = 9007199254740992.0;  // 2^53

// ---- file names (file_names.cpp) -----------------------------------------------------------------

/// Where a workload's file names resolve and which files they may reach.
struct file_root
{
    std::filesystem::path dir;
    file_scope scope = file_scope::self_contained;
};

/// The file `name` (non-empty) names, lexically normal; fails at loc when the scope refuses it.
std::filesystem::path resolve_file(const std::string& name, const file_root& root, const json_location& loc);
/// Fails at loc: a self-contained workload names no kernel file.
[[noreturn]] void refuse_kernel_file_name(const json_location& loc);
/// Fails at loc: a self-contained workload names an input file only with its sha256.
[[noreturn]] void refuse_unrecorded_input_file(const json_location& loc);

// ---- names and expressions (workload_signature.cpp) ---------------------------------------------

/// 'name', for messages.
std::string quote(std::string_view s);
/// Fails at loc unless name is a C identifier and not a keyword; `what` says what it names.
void check_identifier(const std::string& name, const json_location& loc, std::string_view what);
/// An integer or an expression string.
expression parse_expression(const boost::json::value& v, const json_location& loc);

// ---- the signature and tolerances (workload_signature.cpp) --------------------------------------

signature parse_signature(const boost::json::value& v, const json_location& loc);
void resolve_tolerances(workload& w, const boost::json::value* given, const json_location& loc);
boost::json::object tolerance_json(const tolerance& tol);

// ---- cases and their inputs (workload_cases.cpp) ------------------------------------------------

/// Integral doubles as JSON integers ("-8", not "-8E0"); both read back the same.
boost::json::value compact_number(double v);
/// The integer range of an integer dtype, as doubles for range checks (both ends are exact).
std::pair<double, double> integer_range(dtype t);
/// The longest case or baseline name: with a prefix and an extension it is still a file name.
inline constexpr std::size_t max_case_name_length = 100;
/// Case and baseline names become file names, so they stay portable, unhidden and short.
bool is_valid_case_name(std::string_view name);
/// Parses cases[i] against the signature and tunables already read into w.
workload_case parse_case(const boost::json::value& v,
                         const json_location& loc,
                         const workload& w,
                         const file_root& files);

// ---- kernels, tunables and launch plans (workload_kernels.cpp) ----------------------------------

// Reads the kernel named `key` ("reference", "initial", "tunable") with its file or inline source,
// entry point and launch plan. `kernel` stays empty when the workload does not give it.
struct kernel_parse
{
    std::optional<kernel_source> kernel;
    json_location launch_loc{std::string()};  ///< Where its launch plan was written ("launch" by default).
};

kernel_parse parse_kernel(const json_reader& top,
                          const std::string& key,
                          bool required,
                          const std::string& default_entry,
                          const launch_plan& default_launch,
                          const file_root& files);
std::map<std::string, std::vector<std::int64_t>> parse_tunables(const boost::json::value& v,
                                                                const json_location& loc,
                                                                const signature& sig);
/// Checks one kernel's launch plan against every case.
void check_launch_plan(const workload& w,
                       const launch_plan& plan,
                       const json_location& plan_loc,
                       const json_location& cases_loc,
                       const std::string& kernel,
                       bool tunables_allowed);
std::vector<expression> parse_restrictions(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w);

// ---- baselines and the roofline (workload_baselines.cpp) ----------------------------------------

std::vector<baseline_spec> parse_baselines(const boost::json::value& v,
                                           const json_location& loc,
                                           const workload& w);
roofline_work parse_roofline(const boost::json::value& v, const json_location& loc, const workload& w);

}  // namespace warpsmith::detail
