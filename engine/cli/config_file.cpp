#include "engine/cli/config_file.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <sstream>

namespace warpsmith
{

namespace json = boost::json;

namespace
{

std::string config_value_text(const json::value& v, const std::string& origin, const std::string& key)
{
    switch (v.kind())
    {
        case json::kind::string:
            return std::string(v.get_string());
        case json::kind::bool_:
            return v.get_bool() ? "true" : "false";
        case json::kind::int64:
            return std::to_string(v.get_int64());
        case json::kind::uint64:
            return std::to_string(v.get_uint64());
        case json::kind::double_:
        {
            std::ostringstream s;
            s.precision(17);
            s << v.get_double();
            return s.str();
        }
        default:
            throw user_error(origin + ": '" + key + "' must be a string, number or boolean");
    }
}

}  // namespace

void apply_config_file(CLI::App& cmd, const std::string& path)
{
    const std::string& origin = path;
    const auto v = read_json_file(path);
    if (!v.is_object())
        throw user_error(origin + ": must be a JSON object whose keys are " + cmd.get_name() +
                         " flags (e.g. \"max-iterations\")");
    for (const auto& kv : v.get_object())
    {
        std::string key(kv.key());
        std::replace(key.begin(), key.end(), '_', '-');
        if (key == "config")
            throw user_error(origin + ": 'config' cannot name another config file");
        CLI::Option* opt = cmd.get_option_no_throw("--" + key);
        if (!opt)
            throw user_error(origin + ": unknown key '" + std::string(kv.key()) + "' (keys are " +
                             cmd.get_name() + " flags)");
        if (opt->count() > 0)
            continue;  // the command line wins
        try
        {
            if (kv.value().is_array())
                for (const auto& e : kv.value().get_array())
                    opt->add_result(config_value_text(e, origin, key));
            else
                opt->add_result(config_value_text(kv.value(), origin, key));
            opt->run_callback();
        }
        catch (const CLI::Error& e)
        {
            throw user_error(origin + ": '" + std::string(kv.key()) + "': " + e.what());
        }
    }
}

}  // namespace warpsmith
