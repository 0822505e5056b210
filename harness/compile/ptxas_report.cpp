#include "harness/compile/ptxas_report.hpp"

#include <cctype>
#include <charconv>

namespace warpsmith
{

namespace
{

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// The text between the first pair of single quotes after prefix, or empty.
std::string quoted_after(std::string_view line, std::string_view prefix)
{
    auto at = line.find(prefix);
    if (at == std::string_view::npos)
        return {};
    auto rest = line.substr(at + prefix.size());
    auto open = rest.find('\'');
    if (open == std::string_view::npos)
        return {};
    auto close = rest.find('\'', open + 1);
    if (close == std::string_view::npos)
        return {};
    return std::string(rest.substr(open + 1, close - open - 1));
}

int leading_int(std::string_view s)
{
    int n = 0;
    s = trim(s);
    std::from_chars(s.data(), s.data() + s.size(), n);
    return n;
}

// Applies one comma-separated item such as "32 registers", "used 1 barriers", "1024 bytes smem",
// "360 bytes cmem[0]", "480 bytes stack frame", "752 bytes spill stores".
void apply_item(std::string_view item, resource_usage& r, bool& saw_constant)
{
    item = trim(item);
    if (item.starts_with("Used ") || item.starts_with("used "))
        item.remove_prefix(5);
    int n = leading_int(item);
    if (item.ends_with(" registers"))
        r.registers = n;
    else if (item.ends_with(" barriers"))
        r.barriers = n;
    else if (item.ends_with(" bytes smem"))
        r.static_shared_bytes = n;
    else if (item.ends_with(" bytes stack frame"))
        r.stack_frame_bytes = n;
    else if (item.ends_with(" bytes spill stores"))
        r.spill_stores_bytes = n;
    else if (item.ends_with(" bytes spill loads"))
        r.spill_loads_bytes = n;
    else if (item.find(" bytes cmem[") != std::string_view::npos)
    {
        // Banks are summed: cmem[0] holds the kernel parameters, higher banks the module's
        // __constant__ data and compiler constants.
        if (!saw_constant)
            r.constant_bytes = 0;
        saw_constant = true;
        r.constant_bytes += n;
    }
}

void apply_items(std::string_view text, resource_usage& r)
{
    bool saw_constant = false;
    while (!text.empty())
    {
        auto comma = text.find(',');
        apply_item(text.substr(0, comma), r, saw_constant);
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
}

}  // namespace

ptxas_report parse_ptxas_report(std::string_view log)
{
    ptxas_report report;
    std::string current_entry;  // The entry whose "Used ..." line comes next.
    std::string properties_of;  // The function named by the last "Function properties for".
    while (!log.empty())
    {
        auto nl = log.find('\n');
        std::string_view line = log.substr(0, nl);
        log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);

        // Property lines read "ptxas         .     480 bytes stack frame, 752 bytes spill stores, ..."
        // (some releases print them without the "ptxas ." prefix).
        if (line.find("bytes stack frame") != std::string_view::npos)
        {
            if (report.resources.count(properties_of))
            {
                auto dot = line.find(" . ");
                apply_items(dot == std::string_view::npos ? line : line.substr(dot + 3),
                            report.resources[properties_of]);
            }
            continue;
        }
        if (!line.starts_with("ptxas"))
            continue;
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string_view body = trim(line.substr(colon + 1));
        if (body.starts_with("Compiling entry function"))
        {
            current_entry = quoted_after(body, "Compiling entry function");
            properties_of.clear();
            if (!current_entry.empty() && !report.resources.count(current_entry))
            {
                report.entries.push_back(current_entry);
                report.resources[current_entry] = resource_usage{};
            }
        }
        else if (body.starts_with("Function properties for"))
        {
            body.remove_prefix(std::string_view("Function properties for").size());
            properties_of = std::string(trim(body));
        }
        else if (body.starts_with("Used "))
        {
            if (!current_entry.empty())
                apply_items(body, report.resources[current_entry]);
        }
        else if (body.find("bytes gmem") != std::string_view::npos)
        {
            resource_usage module;
            apply_items(body, module);
            report.module_constant_bytes = module.constant_bytes;
        }
    }
    return report;
}

}  // namespace warpsmith
