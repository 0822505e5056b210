#include "harness/worker/protocol.hpp"

#include "harness/core/json_file.hpp"

#include <boost/json.hpp>

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

json_location request_location(std::string where)
{
    return json_location(std::move(where), {}, json_style::request);
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
    std::string line = to_json_text(response);
    line += '\n';
    std::lock_guard lock(mutex_);
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
        return false;
    return std::fflush(file_) == 0;
}

}  // namespace warpsmith::worker
