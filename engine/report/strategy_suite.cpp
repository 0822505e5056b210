#include "engine/report/strategy_suite.hpp"

#include "engine/report/suite_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/json_reader.hpp"
#include "harness/json/lenient.hpp"
#include "harness/workload/file_names.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace warpsmith::report
{

namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

[[noreturn]] void fail(std::string_view origin, const std::string& field, const std::string& what)
{
    throw user_error(std::string(origin) + ": " + field + ": " + what);
}

std::string number_text(double x)
{
    char buf[64];
    if (x == std::floor(x) && std::abs(x) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", x);
    else
        std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

std::string resolve(const fs::path& dir, const std::string& p)
{
    if (p.empty())
        return p;
    fs::path path(p);
    return (path.is_absolute() ? path : (dir / path)).lexically_normal().string();
}

/// {"flag": value, ...} -> flags. Booleans: true gives the flag alone, false leaves it out;
/// arrays repeat the flag.
std::vector<suite_flag> parse_options(const json::value& v,
                                      const fs::path& dir,
                                      std::string_view origin,
                                      const std::string& field,
                                      json::object& resolved)
{
    if (!v.is_object())
        fail(origin, field, "must be an object of flags, e.g. {\"gpus\": \"0\"}");
    std::vector<suite_flag> out;
    for (const auto& kv : v.get_object())
    {
        std::string name(kv.key());
        while (!name.empty() && name.front() == '-')
            name.erase(name.begin());
        std::replace(name.begin(), name.end(), '_', '-');
        const bool ok =
            !name.empty() &&
            std::all_of(name.begin(),
                        name.end(),
                        [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
        if (!ok)
            fail(origin,
                 field,
                 "'" + std::string(kv.key()) + "' is not a flag name (lower-case letters, digits, '-')");
        if (is_set_by_the_suite(name))
            fail(
                origin,
                field,
                "'" + name +
                    "' is set by the suite itself (seeds, budget, workloads, provider, strategy); remove it");
        // A shared suite must not run programs, read files or send the key where it says
        // (suite_options.hpp); the user can still give such a flag with --run-arg.
        auto check = [&](const std::optional<std::string>& value)
        {
            if (const auto why = why_a_suite_may_not_set(name, value))
                fail(origin,
                     field + "." + name,
                     "'" + name + "' " + *why +
                         "; a suite file sets only search, timing and model options: give it on the command "
                         "line with --run-arg (docs/bench-strategies.md)");
        };
        auto add = [&](std::optional<std::string> value)
        {
            check(value);
            out.push_back({name, std::move(value)});
        };
        auto one = [&](const json::value& x)
        {
            switch (x.kind())
            {
                case json::kind::string:
                {
                    std::string s(x.get_string());
                    if (is_path_option(name))
                    {
                        // The suite's own inputs, which its runs read and copy into their run
                        // directories: inside the suite's folder, as a workload's files are.
                        if (s.empty())
                            fail(origin, field + "." + name, "must not be empty");
                        if (auto why = why_not_inside(s, dir))
                            fail(origin,
                                 field + "." + name,
                                 *why +
                                     ": a suite names its own inputs by relative paths inside its folder "
                                     "(docs/bench-strategies.md)");
                        s = resolve(dir, s);
                    }
                    add(s);
                    return json::value(s);
                }
                case json::kind::int64:
                case json::kind::uint64:
                case json::kind::double_:
                    add(number_text(x.to_number<double>()));
                    return x;
                case json::kind::bool_:
                    if (x.get_bool())
                        add(std::nullopt);
                    else
                        check(std::nullopt);  // false leaves the flag out, but the suite still names it.
                    return x;
                default:
                    fail(origin,
                         field + "." + std::string(kv.key()),
                         "must be a string, number, boolean or array");
            }
        };
        if (kv.value().is_array())
        {
            json::array arr;
            for (const auto& x : kv.value().get_array())
            {
                if (x.is_array() || x.is_object())
                    fail(origin,
                         field + "." + std::string(kv.key()),
                         "array elements must be strings or numbers");
                arr.push_back(one(x));
            }
            resolved[name] = std::move(arr);
        }
        else
            resolved[name] = one(kv.value());
    }
    return out;
}

void check_keys(const json::object& o,
                std::initializer_list<std::string_view> known,
                std::string_view origin,
                const std::string& field)
{
    for (const auto& kv : o)
        if (std::find(known.begin(), known.end(), kv.key()) == known.end())
        {
            std::string list;
            for (auto k : known)
                list += (list.empty() ? "" : ", ") + std::string(k);
            fail(origin,
                 field.empty() ? std::string(kv.key()) : field + "." + std::string(kv.key()),
                 "unknown key (known: " + list + ")");
        }
}

std::optional<std::int64_t> positive_int(const json_reader& o, std::string_view key, std::string_view origin)
{
    const auto* v = o.find(key);
    if (!v || v->is_null())
        return std::nullopt;
    if (!v->is_number() || v->to_number<double>() < 1 ||
        v->to_number<double>() != std::floor(v->to_number<double>()))
        fail(origin, "budget." + std::string(key), "must be a positive integer");
    return static_cast<std::int64_t>(v->to_number<double>());
}

std::optional<double> positive_number(const json_reader& o, std::string_view key, std::string_view origin)
{
    const auto* v = o.find(key);
    if (!v || v->is_null())
        return std::nullopt;
    if (!v->is_number() || !(v->to_number<double>() > 0))
        fail(origin, "budget." + std::string(key), "must be a positive number");
    return v->to_number<double>();
}

std::string workload_name(const fs::path& p)
{
    std::error_code ec;
    const fs::path file = fs::is_directory(p, ec) ? p / "workload.json" : p;
    try
    {
        const auto v = read_json_file(file);
        if (auto name = lenient::string_at(v, "name"))
            return *name;
    }
    catch (const std::exception&)
    {
    }
    return fs::is_directory(p, ec) ? p.filename().string() : p.stem().string();
}

bool valid_name(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(),
                                     s.end(),
                                     [](char c)
                                     {
                                         return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                                (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
                                                c == '/' || c == '+';
                                     });
}

}  // namespace

json::object suite_budget::to_json() const
{
    auto opt = [](const auto& x) { return x ? json::value(*x) : json::value(nullptr); };
    return json::object{{"candidates", opt(candidates)},
                        {"iterations", opt(iterations)},
                        {"wall_seconds", opt(wall_seconds)},
                        {"tokens", opt(tokens)},
                        {"cost_usd", opt(cost_usd)}};
}

strategy_suite parse_strategy_suite(const json::value& v, const fs::path& dir, std::string_view origin)
{
    if (!v.is_object())
        throw user_error(std::string(origin) +
                         ": a strategy suite must be a JSON object (docs/bench-strategies.md)");
    const auto& o = v.get_object();
    check_keys(
        o,
        {"name", "description", "workloads", "seeds", "budget", "options", "share_eval_cache", "strategies"},
        origin,
        "");
    strategy_suite s;
    s.json = o;
    // A file people write (document style): null is a value, and the checks below name the field.
    const json_reader r(o, json_location(std::string(origin)));

    const auto* name = r.find("name");
    if (!name || !name->is_string())
        fail(
            origin, "name", "missing (a short name for the table and the database, e.g. \"autotune-sgemm\")");
    s.name = std::string(name->get_string());
    if (!valid_name(s.name))
        fail(origin, "name", "'" + s.name + "' may use letters, digits and - _ . / + only");
    // The runs go to <results>/bench-<name>: a part ".." would put them elsewhere
    // ("x/../../../elsewhere"), and "." only spells a name twice.
    for (const auto& part : fs::path(s.name))
        if (part == "." || part == "..")
            fail(origin,
                 "name",
                 "'" + s.name + "' has a '.' or '..' part (the runs go to <results>/bench-<name>)");
    if (const auto* d = r.find("description"))
    {
        if (!d->is_string())
            fail(origin, "description", "must be a string");
        s.description = std::string(d->get_string());
    }

    const auto* workloads = r.find("workloads");
    if (!workloads || !workloads->is_array() || workloads->get_array().empty())
        fail(origin, "workloads", "must be a non-empty array of workload paths");
    for (std::size_t i = 0; i < workloads->get_array().size(); ++i)
    {
        const auto& w = workloads->get_array()[i];
        if (!w.is_string() || w.get_string().empty())
            fail(origin, "workloads[" + std::to_string(i) + "]", "must be a workload path (string)");
        suite_workload sw;
        sw.path = resolve(dir, std::string(w.get_string()));
        // load_strategy_suite replaces it with workload.json's "name".
        const fs::path p(sw.path);
        sw.name = p.extension() == ".json" ? p.stem().string() : p.filename().string();
        s.workloads.push_back(std::move(sw));
    }

    const auto* seeds = r.find("seeds");
    if (!seeds || !seeds->is_array() || seeds->get_array().empty())
        fail(origin, "seeds", "must be a non-empty array of non-negative integers, e.g. [1, 2, 3]");
    for (std::size_t i = 0; i < seeds->get_array().size(); ++i)
    {
        const auto& x = seeds->get_array()[i];
        if (x.is_int64() && x.get_int64() >= 0)
            s.seeds.push_back(static_cast<std::uint64_t>(x.get_int64()));
        else if (x.is_uint64())
            s.seeds.push_back(x.get_uint64());
        else
            fail(origin, "seeds[" + std::to_string(i) + "]", "must be a non-negative integer");
        if (std::count(s.seeds.begin(), s.seeds.end(), s.seeds.back()) > 1)
            fail(origin,
                 "seeds[" + std::to_string(i) + "]",
                 "seed " + std::to_string(s.seeds.back()) + " is listed twice");
    }

    const auto* budget = r.find("budget");
    if (!budget || !budget->is_object())
        fail(origin,
             "budget",
             "missing: every run gets the same budget, e.g. {\"candidates\": 60} (keys: candidates, "
             "iterations, "
             "wall_seconds, tokens, cost_usd)");
    const json_reader b = r.nested("budget");
    check_keys(
        b.object(), {"candidates", "iterations", "wall_seconds", "tokens", "cost_usd"}, origin, "budget");
    s.budget.candidates = positive_int(b, "candidates", origin);
    s.budget.iterations = positive_int(b, "iterations", origin);
    s.budget.wall_seconds = positive_number(b, "wall_seconds", origin);
    s.budget.tokens = positive_int(b, "tokens", origin);
    s.budget.cost_usd = positive_number(b, "cost_usd", origin);
    if (!s.budget.candidates && !s.budget.iterations && !s.budget.wall_seconds && !s.budget.tokens &&
        !s.budget.cost_usd)
        fail(origin, "budget", "give at least one of candidates, iterations, wall_seconds, tokens, cost_usd");

    if (const auto* opts = r.find("options"))
    {
        json::object resolved;
        s.options = parse_options(*opts, dir, origin, "options", resolved);
        s.json["options"] = std::move(resolved);
    }
    if (const auto* share = r.find("share_eval_cache"))
    {
        if (!share->is_bool())
            fail(origin, "share_eval_cache", "must be true or false");
        s.share_eval_cache = share->get_bool();
    }

    const auto* strategies = r.find("strategies");
    if (!strategies || !strategies->is_array() || strategies->get_array().empty())
        fail(origin,
             "strategies",
             "must be a non-empty array of {\"provider\", \"strategy\", \"options\"} objects");
    std::set<std::string> names;
    json::array resolved_strategies;
    for (std::size_t i = 0; i < strategies->get_array().size(); ++i)
    {
        const std::string field = "strategies[" + std::to_string(i) + "]";
        const auto& x = strategies->get_array()[i];
        if (!x.is_object())
            fail(origin,
                 field,
                 "must be an object with \"provider\" (and \"strategy\", \"options\", \"name\")");
        const auto& so = x.get_object();
        check_keys(so, {"name", "provider", "strategy", "options"}, origin, field);
        const json_reader sr(so, json_location(std::string(origin), field));
        suite_strategy st;
        const auto* provider = sr.find("provider");
        if (!provider || !provider->is_string() || provider->get_string().empty())
            fail(origin,
                 field + ".provider",
                 "missing (autotune, scripted, openai, openai-chat, replay, ...)");
        st.provider = std::string(provider->get_string());
        if (const auto* k = sr.find("strategy"))
        {
            if (!k->is_string())
                fail(origin, field + ".strategy", "must be a string");
            st.strategy = std::string(k->get_string());
        }
        if (st.is_tune())
        {
            static const std::set<std::string> tune_strategies{
                "grid", "random", "local", "anneal", "genetic"};
            if (!tune_strategies.count(st.strategy))
                fail(origin,
                     field + ".strategy",
                     "provider autotune needs one of grid, random, local, anneal, genetic (got '" +
                         st.strategy + "')");
        }
        if (const auto* n = sr.find("name"))
        {
            if (!n->is_string())
                fail(origin, field + ".name", "must be a string");
            st.name = std::string(n->get_string());
        }
        else
            st.name = st.is_tune()          ? st.strategy
                      : st.strategy.empty() ? st.provider
                                            : st.provider + "/" + st.strategy;
        if (!valid_name(st.name))
            fail(origin, field + ".name", "'" + st.name + "' may use letters, digits and - _ . / + only");
        if (!names.insert(st.name).second)
            fail(origin,
                 field + ".name",
                 "'" + st.name + "' is used twice; give each strategy its own \"name\"");
        json::object resolved;
        if (const auto* opts = sr.find("options"))
            st.options = parse_options(*opts, dir, origin, field + ".options", resolved);
        st.options_json = resolved;
        json::object rs = so;
        rs["options"] = std::move(resolved);
        rs["name"] = st.name;
        resolved_strategies.push_back(std::move(rs));
        s.strategies.push_back(std::move(st));
    }
    s.json["strategies"] = std::move(resolved_strategies);
    json::array resolved_workloads;
    for (const auto& w : s.workloads)
        resolved_workloads.push_back(json::value(w.path));
    s.json["workloads"] = std::move(resolved_workloads);
    return s;
}

strategy_suite load_strategy_suite(const fs::path& file)
{
    const auto v = read_json_file(file);
    const auto dir = fs::absolute(file).parent_path();
    auto s = parse_strategy_suite(v, dir, file.string());
    s.file = fs::absolute(file).lexically_normal();
    for (std::size_t i = 0; i < s.workloads.size(); ++i)
    {
        std::error_code ec;
        if (!fs::exists(s.workloads[i].path, ec))
            throw user_error(file.string() + ": workloads[" + std::to_string(i) +
                             "]: " + s.workloads[i].path + " does not exist");
        s.workloads[i].name = workload_name(s.workloads[i].path);
    }
    return s;
}

std::string planned_run::label() const
{
    return strategy->name + " on " + workload->name + ", seed " + std::to_string(seed);
}

std::vector<planned_run> plan_runs(const strategy_suite& suite,
                                   const fs::path& results_dir,
                                   const std::vector<std::string>& extra_args)
{
    std::vector<planned_run> out;
    auto add_flags = [](std::vector<std::string>& args, const std::vector<suite_flag>& flags)
    {
        // One argument per flag, its value bound with '=': a value is never read as a flag of its
        // own ({"no-measure": "--worker-cmd=..."} used to run the command the allow-list refuses).
        for (const auto& f : flags)
            args.push_back(f.value ? "--" + f.name + "=" + *f.value : "--" + f.name);
    };
    auto has_flag = [](const std::vector<suite_flag>& flags, std::string_view name)
    { return std::any_of(flags.begin(), flags.end(), [&](const auto& f) { return f.name == name; }); };
    for (const auto seed : suite.seeds)
        for (const auto& w : suite.workloads)
            for (const auto& st : suite.strategies)
            {
                planned_run r;
                r.index = out.size();
                r.strategy = &st;
                r.workload = &w;
                r.seed = seed;
                auto& a = r.args;
                const auto& b = suite.budget;
                if (st.is_tune())
                {
                    a = {"tune", w.path, "--strategy", st.strategy, "--seed", std::to_string(seed)};
                    if (b.candidates)
                        a.insert(a.end(), {"--budget", std::to_string(*b.candidates)});
                    if (b.wall_seconds)
                        a.insert(a.end(), {"--max-wall-time", number_text(*b.wall_seconds)});
                    // A shared evaluation cache would hand later strategies earlier strategies'
                    // measurements for free, which skews time to best; each run measures its own.
                    if (!suite.share_eval_cache && !has_flag(st.options, "eval-cache") &&
                        !has_flag(suite.options, "eval-cache") && !has_flag(st.options, "no-eval-cache") &&
                        !has_flag(suite.options, "no-eval-cache"))
                        a.push_back("--no-eval-cache");
                }
                else
                {
                    a = {"optimize", "--workload", w.path, "--provider", st.provider};
                    if (!st.strategy.empty())
                        a.insert(a.end(), {"--strategy", st.strategy});
                    a.insert(a.end(), {"--seed", std::to_string(seed)});
                    if (b.candidates)
                        a.insert(a.end(), {"--max-candidates", std::to_string(*b.candidates)});
                    if (b.iterations)
                        a.insert(a.end(), {"--max-iterations", std::to_string(*b.iterations)});
                    if (b.wall_seconds)
                        a.insert(a.end(), {"--max-wall-time", number_text(*b.wall_seconds)});
                    if (b.tokens)
                        a.insert(a.end(), {"--max-tokens", std::to_string(*b.tokens)});
                    if (b.cost_usd)
                        a.insert(a.end(), {"--max-cost", number_text(*b.cost_usd)});
                }
                a.insert(a.end(), {"--results", results_dir.string(), "--json-progress"});
                add_flags(a, suite.options);
                add_flags(a, st.options);
                // A server the suite names gets no key: any user of a shared machine can listen on
                // a loopback port. The user names a server that should get it with --run-arg.
                if (has_flag(suite.options, "base-url") || has_flag(st.options, "base-url"))
                    a.push_back("--no-api-key");
                a.insert(a.end(), extra_args.begin(), extra_args.end());
                out.push_back(std::move(r));
            }
    return out;
}

}  // namespace warpsmith::report
