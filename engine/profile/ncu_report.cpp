#include "engine/profile/ncu_report.hpp"

#include "engine/profile/csv_table.hpp"

#include <charconv>
#include <cstdlib>

namespace warpsmith
{

namespace
{

/// Column index by header name, or -1.
int column(const csv_row& header, std::string_view name)
{
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return static_cast<int>(i);
    return -1;
}

std::string cell(const csv_row& row, int col)
{
    return col >= 0 && static_cast<std::size_t>(col) < row.size() ? row[col] : std::string();
}

/// The header row of ncu's table: the first row naming both "ID" and "Kernel Name".
std::size_t find_header(const std::vector<csv_row>& rows, std::string_view what)
{
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (column(rows[i], "ID") >= 0 && column(rows[i], "Kernel Name") >= 0)
            return i;
    throw ncu_format_error("ncu's " + std::string(what) +
                           " page has no table with 'ID' and 'Kernel Name' columns (an ncu version whose "
                           "CSV output this warpsmith cannot read?)");
}

}  // namespace

const ncu_metric* ncu_kernel::find(std::string_view metric) const
{
    auto it = metrics.find(metric);
    return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> ncu_kernel::number(std::string_view metric) const
{
    const ncu_metric* m = find(metric);
    return m ? m->value : std::nullopt;
}

std::optional<double> parse_ncu_number(std::string_view text)
{
    std::string digits;
    digits.reserve(text.size());
    for (char c : text)
        if (c != ',' && c != ' ')
            digits += c;
    if (digits.empty())
        return std::nullopt;
    double v = 0;
    const char* first = digits.data();
    const char* last = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last)
        return std::nullopt;
    return v;
}

std::vector<ncu_kernel> parse_raw_page(std::string_view csv)
{
    const std::vector<csv_row> rows = parse_csv(csv);
    const std::size_t h = find_header(rows, "raw");
    const csv_row& header = rows[h];
    const int id_col = column(header, "ID");
    const int name_col = column(header, "Kernel Name");
    const int grid_col = column(header, "Grid Size");
    const int block_col = column(header, "Block Size");
    // Columns up to "Kernel Name" and a few after it describe the launch; ncu's metric names
    // contain "__" (e.g. "launch__grid_size"), which no descriptive column does.
    std::size_t first = h + 1;
    csv_row units;
    if (first < rows.size() && cell(rows[first], id_col).empty())
        units = rows[first++];
    std::vector<ncu_kernel> kernels;
    for (std::size_t r = first; r < rows.size(); ++r)
    {
        const csv_row& row = rows[r];
        if (cell(row, id_col).empty())
            continue;
        ncu_kernel k;
        k.id = cell(row, id_col);
        k.name = cell(row, name_col);
        k.grid = cell(row, grid_col);
        k.block = cell(row, block_col);
        for (std::size_t c = 0; c < header.size() && c < row.size(); ++c)
        {
            if (header[c].find("__") == std::string::npos)
                continue;
            ncu_metric m;
            m.unit = c < units.size() ? units[c] : std::string();
            m.text = row[c];
            m.value = parse_ncu_number(row[c]);
            k.metrics.emplace(header[c], std::move(m));
        }
        kernels.push_back(std::move(k));
    }
    return kernels;
}

void add_details_page(std::vector<ncu_kernel>& kernels, std::string_view csv)
{
    const std::vector<csv_row> rows = parse_csv(csv);
    const std::size_t h = find_header(rows, "details");
    const csv_row& header = rows[h];
    const int id_col = column(header, "ID");
    const int rule_col = column(header, "Rule Name");
    if (rule_col < 0)
        throw ncu_format_error("ncu's details page has no 'Rule Name' column");
    const int section_col = column(header, "Section Name");
    const int type_col = column(header, "Rule Type");
    const int desc_col = column(header, "Rule Description");
    const int speedup_col = column(header, "Estimated Speedup");
    for (std::size_t r = h + 1; r < rows.size(); ++r)
    {
        const csv_row& row = rows[r];
        const std::string rule = cell(row, rule_col);
        if (rule.empty())
            continue;
        const std::string id = cell(row, id_col);
        for (ncu_kernel& k : kernels)
        {
            if (k.id != id)
                continue;
            ncu_rule out;
            out.section = cell(row, section_col);
            out.name = rule;
            out.type = cell(row, type_col);
            out.description = cell(row, desc_col);
            out.estimated_speedup = parse_ncu_number(cell(row, speedup_col));
            // The same rule can be listed once per metric row of its section; keep one.
            bool seen = false;
            for (const ncu_rule& existing : k.rules)
                seen = seen || (existing.name == out.name && existing.description == out.description);
            if (!seen)
                k.rules.push_back(std::move(out));
        }
    }
}

}  // namespace warpsmith
