#pragma once

// report.html in parts (html_report.hpp renders it): the page being written, the number and text
// formats every section shares (html_format.cpp), the run sections (summary, best, confirmation:
// html_run_sections.cpp) and the detail sections (charts, baselines, roofline, candidates, source:
// html_detail_sections.cpp). Included by those files only.

#include "engine/report/markup_escape.hpp"
#include "engine/report/run_view.hpp"
#include "harness/protocol/evaluation_result.hpp"
#include "harness/timing/timing_stats.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsmith::report::html
{

namespace json = boost::json;

/// The inline style sheet.
extern const char* const css;

class page
{
public:
    void raw(std::string_view s) { out_ += s; }
    void text(std::string_view s) { out_ += html_escape(s); }
    void kv(const std::string& key, const std::string& html_value)
    {
        out_ += "<tr><th>" + html_escape(key) + "</th><td>" + html_value + "</td></tr>\n";
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

std::string fmt(const char* f, double x);
std::string us(std::optional<double> x);
std::string speedup(std::optional<double> x);
std::string pct(std::optional<double> x);
std::string seconds(std::optional<double> s);
std::string bytes(std::optional<double> b);
std::string integer(std::optional<double> x);
std::string json_text(const json::value& v);
/// The device objects of run.json (each device_info plus versions).
std::vector<const json::object*> devices_of(const run_view& v);
/// environment.clocks of an evaluation result.
std::string clocks_text(const protocol::evaluation_result& result);
const protocol::evaluation_result* best_result(const run_view& v);
/// Per-case timing statistics of an evaluation result.
const timing_stats* case_timing(const protocol::evaluation_result* result, const std::string& name);

// ---- sections ----

void summary_section(page& p, const run_view& v);
void best_section(page& p, const run_view& v);
void confirmation_section(page& p, const run_view& v);
void chart_section(page& p, const run_view& v);
void baselines_section(page& p, const run_view& v);
void roofline_section(page& p, const run_view& v);
/// " (profile)" linking the candidate's row in the profiles section, when it was profiled.
std::string profile_link(const run_view& v, const std::string& id);
void candidates_section(page& p, const run_view& v);
void source_section(page& p, const run_view& v);

}  // namespace warpsmith::report::html
