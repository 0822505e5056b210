#include "agents/http/sse_parser.hpp"

#include "harness/core/error.hpp"

#include <algorithm>

namespace warpsmith::http
{
namespace
{

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

[[noreturn]] void too_long(std::size_t limit)
{
    throw_system_error(errc::http_protocol,
                       "server-sent event longer than " + std::to_string(limit) + " bytes");
}

}  // namespace

sse_parser::sse_parser() : sse_parser(options{}) {}

sse_parser::sse_parser(options opts) : opts_(opts) {}

std::vector<sse_event> sse_parser::feed(std::string_view bytes)
{
    std::vector<sse_event> out;
    feed(bytes, out);
    return out;
}

void sse_parser::feed(std::string_view bytes, std::vector<sse_event>& out)
{
    if (at_stream_start_)
    {
        // The byte order mark may itself be split across pieces, so its bytes are held back until
        // it is clear whether they form one.
        std::size_t take = std::min(bytes.size(), utf8_bom.size() - bom_probe_.size());
        bom_probe_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (utf8_bom.substr(0, bom_probe_.size()) == bom_probe_)
        {
            if (bom_probe_.size() < utf8_bom.size())
                return;
            bom_probe_.clear();
            at_stream_start_ = false;
        }
        else
        {
            at_stream_start_ = false;
            std::string probe = std::move(bom_probe_);
            bom_probe_.clear();
            feed(probe, out);
        }
    }

    std::size_t i = 0;
    const std::size_t n = bytes.size();
    if (n == 0)
        return;
    if (after_cr_)
    {
        after_cr_ = false;
        if (bytes[0] == '\n')
            i = 1;
    }
    while (i < n)
    {
        std::size_t pos = bytes.find_first_of("\r\n", i);
        if (pos == std::string_view::npos)
        {
            line_.append(bytes.substr(i));
            if (line_.size() > opts_.max_event_bytes)
                too_long(opts_.max_event_bytes);
            return;
        }
        line_.append(bytes.substr(i, pos - i));
        if (line_.size() > opts_.max_event_bytes)
            too_long(opts_.max_event_bytes);
        process_line(line_, out);
        line_.clear();
        if (bytes[pos] == '\r')
        {
            if (pos + 1 < n)
                i = bytes[pos + 1] == '\n' ? pos + 2 : pos + 1;
            else
            {
                // The LF of a CRLF may arrive in the next piece; remember to skip it then.
                after_cr_ = true;
                i = pos + 1;
            }
        }
        else
            i = pos + 1;
    }
}

void sse_parser::process_line(std::string_view line, std::vector<sse_event>& out)
{
    if (line.empty())
    {
        dispatch(out);
        return;
    }
    if (line.front() == ':')
    {
        ++comments_;
        return;
    }
    block_started_ = true;
    std::string_view field = line;
    std::string_view value;
    if (auto colon = line.find(':'); colon != std::string_view::npos)
    {
        field = line.substr(0, colon);
        value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
    }
    if (field == "data")
    {
        data_.append(value);
        data_.push_back('\n');
        has_data_ = true;
        if (data_.size() > opts_.max_event_bytes)
            too_long(opts_.max_event_bytes);
    }
    else if (field == "event")
        event_.assign(value);
    else if (field == "id")
    {
        if (value.find('\0') == std::string_view::npos)
            last_id_.assign(value);
    }
    else if (field == "retry")
    {
        if (!value.empty() && value.size() <= 12 &&
            std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        {
            std::chrono::milliseconds ms(std::stoll(std::string(value)));
            reconnect_ = ms;
            block_retry_ = ms;
        }
    }
    // Other field names are ignored, as the standard requires.
}

void sse_parser::dispatch(std::vector<sse_event>& out)
{
    if (has_data_)
    {
        sse_event ev;
        data_.pop_back();  // the '\n' appended after the last data line
        ev.data = std::move(data_);
        if (!event_.empty())
            ev.event = std::move(event_);
        ev.id = last_id_;
        ev.retry = block_retry_;
        out.push_back(std::move(ev));
    }
    data_.clear();
    has_data_ = false;
    event_.clear();
    block_retry_.reset();
    block_started_ = false;
}

std::optional<sse_event> sse_parser::finish()
{
    // Held-back bytes of an incomplete byte order mark are a prefix of it, hence never a line end:
    // they can only belong to an unterminated line.
    if (at_stream_start_)
    {
        line_.insert(0, bom_probe_);
        bom_probe_.clear();
        at_stream_start_ = false;
    }
    std::optional<sse_event> result;
    if (opts_.dispatch_incomplete_at_end)
    {
        std::vector<sse_event> out;
        if (!line_.empty())
            process_line(line_, out);
        dispatch(out);
        if (!out.empty())
            result = std::move(out.front());
    }
    line_.clear();
    data_.clear();
    has_data_ = false;
    event_.clear();
    block_retry_.reset();
    block_started_ = false;
    after_cr_ = false;
    return result;
}

bool sse_parser::has_partial_event() const
{
    return block_started_ || !line_.empty() || !bom_probe_.empty();
}

}  // namespace warpsmith::http
