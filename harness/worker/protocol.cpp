#include "harness/worker/protocol.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <limits>

namespace warpsmith::worker
{

namespace json = boost::json;

std::string_view to_string(error_kind k)
{
    switch (k)
    {
        case error_kind::bad_request:
            return "bad_request";
        case error_kind::no_device:
            return "no_device";
        case error_kind::no_workload:
            return "no_workload";
        case error_kind::reference_failed:
            return "reference_failed";
        case error_kind::no_baseline:
            return "no_baseline";
        case error_kind::internal:
            return "internal";
    }
    return "internal";
}

void bad_request(const std::string& message)
{
    throw request_error(error_kind::bad_request, message);
}

json::object ok_response(const json::value& id)
{
    return json::object{{"id", id}, {"ok", true}};
}

json::object error_response(const json::value& id, error_kind kind, std::string_view message)
{
    return json::object{
        {"id", id}, {"ok", false}, {"error", json::object{{"kind", to_string(kind)}, {"message", message}}}};
}

json::value json_number(double v)
{
    if (std::isfinite(v))
        return v;
    if (std::isnan(v))
        return "NaN";
    return v > 0 ? "Inf" : "-Inf";
}

// ---- field_reader -------------------------------------------------------------------------------

field_reader::field_reader(const json::object& object, std::string where)
    : object_(object), where_(std::move(where))
{
}

std::string field_reader::name(std::string_view key) const
{
    return where_ + ": '" + prefix_ + std::string(key) + "'";
}

field_reader field_reader::nested(std::string_view key) const
{
    field_reader r(require_object(key), where_);
    r.prefix_ = prefix_ + std::string(key) + ".";
    return r;
}

const json::value* field_reader::find(std::string_view key) const
{
    const json::value* v = object_.if_contains(key);
    return (v && !v->is_null()) ? v : nullptr;
}

const json::object& field_reader::require_object(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        bad_request(name(key) + " is missing");
    if (!v->is_object())
        bad_request(name(key) + " must be an object");
    return v->get_object();
}

const json::object* field_reader::optional_object(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return nullptr;
    if (!v->is_object())
        bad_request(name(key) + " must be an object");
    return &v->get_object();
}

const json::array* field_reader::optional_array(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return nullptr;
    if (!v->is_array())
        bad_request(name(key) + " must be an array");
    return &v->get_array();
}

const json::array& field_reader::require_array(std::string_view key) const
{
    const json::array* a = optional_array(key);
    if (!a)
        bad_request(name(key) + " is missing");
    return *a;
}

std::optional<std::int64_t> field_reader::optional_int(std::string_view key,
                                                       std::int64_t min,
                                                       std::int64_t max) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    std::optional<std::int64_t> x;
    if (v->is_int64())
        x = v->get_int64();
    else if (v->is_uint64() &&
             v->get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        x = static_cast<std::int64_t>(v->get_uint64());
    else if (v->is_double() && std::trunc(v->get_double()) == v->get_double() &&
             std::abs(v->get_double()) < 9e15)
        x = static_cast<std::int64_t>(v->get_double());
    if (!x || *x < min || *x > max)
        bad_request(name(key) + " must be an integer from " + std::to_string(min) + " to " +
                    std::to_string(max));
    return x;
}

std::optional<std::uint64_t> field_reader::optional_uint64(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_uint64())
        return v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0)
        return static_cast<std::uint64_t>(v->get_int64());
    bad_request(name(key) + " must be a non-negative integer");
}

std::optional<double> field_reader::optional_number(std::string_view key, double min) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_number())
        bad_request(name(key) + " must be a number");
    const double x = v->to_number<double>();
    if (!std::isfinite(x) || x < min)
        bad_request(name(key) + " must be a number >= " + json::serialize(json::value(min)));
    return x;
}

std::optional<bool> field_reader::optional_bool(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_bool())
        bad_request(name(key) + " must be true or false");
    return v->get_bool();
}

std::optional<std::string> field_reader::optional_string(std::string_view key) const
{
    const json::value* v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_string())
        bad_request(name(key) + " must be a string");
    return std::string(v->get_string());
}

std::string field_reader::require_string(std::string_view key) const
{
    std::optional<std::string> s = optional_string(key);
    if (!s)
        bad_request(name(key) + " is missing");
    return *s;
}

std::vector<std::string> field_reader::optional_strings(std::string_view key) const
{
    std::vector<std::string> out;
    const json::array* a = optional_array(key);
    if (!a)
        return out;
    for (const json::value& v : *a)
    {
        if (!v.is_string())
            bad_request(name(key) + " must be an array of strings");
        out.emplace_back(v.get_string());
    }
    return out;
}

// ---- protocol_writer ----------------------------------------------------------------------------

protocol_writer::protocol_writer(int fd) : file_(::fdopen(fd, "w"))
{
    if (!file_)
        throw std::runtime_error("cannot open the protocol stream");
}

protocol_writer::~protocol_writer()
{
    if (file_)
        std::fclose(file_);
}

bool protocol_writer::write(const json::object& response)
{
    std::string line = json::serialize(response);
    line += '\n';
    std::lock_guard lock(mutex_);
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
        return false;
    return std::fflush(file_) == 0;
}

}  // namespace warpsmith::worker
