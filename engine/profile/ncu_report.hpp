#pragma once

// What Nsight Compute reported for the launches it profiled, read from its CSV pages
// (`ncu --import R.ncu-rep --csv --page raw` and `--page details`), never from its human-readable
// text. The raw page has one row per profiled launch and one column per metric (ncu's own metric
// names, e.g. "dram__throughput.avg.pct_of_peak_sustained_elapsed"), with a row of units under the
// header; the details page has one row per section metric or rule result.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith
{

/// Output that is not what this reader knows (a format change of a newer ncu, or not ncu's at all).
class ncu_format_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct ncu_metric
{
    std::string unit;             ///< As ncu prints it: "%", "nsecond", "Gbyte/second", "" ...
    std::string text;             ///< The value as printed.
    std::optional<double> value;  ///< The value as a number (thousands separators removed), if it is one.
};

/// One rule result of the details page: ncu's analysis with its own advice.
struct ncu_rule
{
    std::string section;                      ///< "Occupancy", "SpeedOfLight" ...
    std::string name;                         ///< Rule name, e.g. "AchievedOccupancy".
    std::string type;                         ///< "OPT", "WRN", "INF" ...
    std::string description;                  ///< ncu's text.
    std::optional<double> estimated_speedup;  ///< Percent, when ncu estimates one.
};

struct ncu_kernel
{
    std::string id;     ///< ncu's launch id in the report.
    std::string name;   ///< Kernel (function) name.
    std::string grid;   ///< "(128, 128, 1)".
    std::string block;  ///< "(32, 32, 1)".
    std::map<std::string, ncu_metric, std::less<>> metrics;
    std::vector<ncu_rule> rules;

    const ncu_metric* find(std::string_view metric) const;
    /// The metric's numeric value, if present and numeric.
    std::optional<double> number(std::string_view metric) const;
};

/// "1,234.5" -> 1234.5, "42" -> 42; "n/a", "" and text -> nullopt.
std::optional<double> parse_ncu_number(std::string_view text);

/// The launches of a raw page. Throws ncu_format_error when the text has no table with a
/// "Kernel Name" and an "ID" column.
std::vector<ncu_kernel> parse_raw_page(std::string_view csv);

/// Adds the rule results of a details page to the kernels with the same ID (kernels the page does
/// not name are left as they are). Throws ncu_format_error when the page lacks the ID / Rule
/// columns.
void add_details_page(std::vector<ncu_kernel>& kernels, std::string_view csv);

}  // namespace warpsmith
