// Where a workload's file names may lead (file_names.hpp, workload_parse.hpp): resolve_file for the
// parsers, anchor_file_names for parts of a workload read from separate files.

#include "harness/workload/file_names.hpp"

#include "harness/core/error.hpp"
#include "harness/workload/workload_parse.hpp"

#include <algorithm>

namespace warpsmith
{

namespace fs = std::filesystem;
namespace json = boost::json;

namespace detail
{

namespace
{

/// True when p (lexically normal) is dir or lies under it.
bool lies_under(const fs::path& p, const fs::path& dir)
{
    const fs::path rel = p.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

fs::path resolve_file(const std::string& name, const file_root& root, const json_location& loc)
{
    const fs::path p = (fs::path(name).is_absolute() ? fs::path(name) : root.dir / name).lexically_normal();
    if (root.scope != file_scope::workload_dir)
        return p;  // self_contained: only input files get here, checked by their sha256
    // A workload someone hands over must not make warpsmith read other files of the machine (a
    // reference is copied into the run directory and shown to the model; an input file is uploaded
    // and its values appear in mismatch reports).
    if (auto why = why_not_inside(name, root.dir))
        loc.fail(*why +
                 ": a workload names its files by relative paths inside its own directory "
                 "(docs/workload-format.md)");
    return p;
}

void refuse_kernel_file_name(const json_location& loc)
{
    loc.fail(
        "a self-contained workload (a run's workload/workload.json, a replay request) carries its "
        "kernels inline ('reference_source', 'initial_source', 'tunable_source'); a kernel file name "
        "is read only from a workload directory (docs/workload-format.md)");
}

void refuse_unrecorded_input_file(const json_location& loc)
{
    loc.fail(
        "a self-contained workload (a run's workload/workload.json, a replay request) names an input "
        "file only with the sha256 of its bytes, as warpsmith writes it (docs/workload-format.md)");
}

}  // namespace detail

std::optional<std::string> why_not_inside(const std::string& name, const fs::path& dir)
{
    using detail::quote;
    if (std::any_of(name.begin(),
                    name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return "a file name holds a control character";
    if (fs::path(name).is_absolute())
        return quote(name) + " is absolute";
    const fs::path p = (dir / name).lexically_normal();
    if (!detail::lies_under(p, dir))
        return quote(name) + " leaves the directory";
    std::error_code ec_file, ec_dir;
    const fs::path real = fs::weakly_canonical(p, ec_file);
    const fs::path real_dir = fs::weakly_canonical(dir, ec_dir);
    if (ec_file || ec_dir || !detail::lies_under(real, real_dir))
        return quote(name) + " leads out of the directory through a symbolic link";
    return std::nullopt;
}

void anchor_file_names(json::object& parts, const fs::path& dir, file_scope scope, std::string_view origin)
try
{
    const detail::file_root root{dir, scope};
    const json_location top(std::string(origin), {});
    auto anchor = [&root](json::value& name, const json_location& loc)
    {
        if (name.is_string() && !name.get_string().empty())
            name = json::string(detail::resolve_file(std::string(name.get_string()), root, loc).string());
    };
    auto anchor_kernel = [&](json::value& name, const json_location& loc)
    {
        if (root.scope == file_scope::self_contained && name.is_string())
            detail::refuse_kernel_file_name(loc);
        anchor(name, loc);
    };
    for (const char* kernel : {"reference", "initial", "tunable"})
        if (auto* v = parts.if_contains(kernel))
        {
            if (auto* tunable = v->if_object())  // {"source": "file.cu", "launch": ..., "entry": ...}
            {
                if (auto* source = tunable->if_contains("source"))
                    anchor_kernel(*source, top.key(kernel).key("source"));
            }
            else
                anchor_kernel(*v, top.key(kernel));
        }
    auto* cases = parts.if_contains("cases");
    if (!cases || !cases->is_array())
        return;
    for (std::size_t i = 0; i < cases->get_array().size(); ++i)
    {
        auto* c = cases->get_array()[i].if_object();
        auto* inputs = c ? c->if_contains("inputs") : nullptr;
        if (!inputs || !inputs->is_object())
            continue;
        for (auto& [param, spec] : inputs->get_object())
        {
            auto* input = spec.if_object();
            const auto* gen = input ? input->if_contains("gen") : nullptr;
            if (!gen || !gen->is_string() || gen->get_string() != "file")
                continue;
            const auto loc = top.key("cases").index(i).key("inputs").key(param);
            if (root.scope == file_scope::self_contained && !input->if_contains("sha256"))
                detail::refuse_unrecorded_input_file(loc);
            if (auto* path = input->if_contains("path"))
                anchor(*path, loc.key("path"));
        }
    }
}
catch (const json_error& e)
{
    throw user_error(e.what());
}

}  // namespace warpsmith
