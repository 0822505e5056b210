#include "engine/executors/line_framer.hpp"

namespace warpsmith
{

line_framer::line_framer(std::size_t max_line, overflow_policy policy) : max_line_(max_line), policy_(policy)
{
}

void line_framer::feed(std::string_view bytes)
{
    while (!bytes.empty())
    {
        if (overflowed_)
            return;
        auto nl = bytes.find('\n');
        std::string_view chunk = bytes.substr(0, nl);
        if (!dropping_)
        {
            std::size_t room = max_line_ - partial_.size();
            if (chunk.size() > room)
            {
                if (policy_ == overflow_policy::fail)
                {
                    overflowed_ = true;
                    return;
                }
                partial_.append(chunk.substr(0, room));
                dropping_ = true;
            }
            else
                partial_.append(chunk);
        }
        if (nl == std::string_view::npos)
            return;
        finish_line();
        bytes.remove_prefix(nl + 1);
    }
}

void line_framer::finish_line()
{
    if (!partial_.empty() && partial_.back() == '\r')
        partial_.pop_back();
    lines_.push_back(std::move(partial_));
    partial_.clear();
    dropping_ = false;
}

std::optional<std::string> line_framer::next_line()
{
    if (lines_.empty())
        return std::nullopt;
    std::string line = std::move(lines_.front());
    lines_.pop_front();
    return line;
}

std::string line_framer::take_partial()
{
    std::string out = std::move(partial_);
    partial_.clear();
    dropping_ = false;
    return out;
}

}  // namespace warpsmith
