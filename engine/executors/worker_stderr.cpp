#include "engine/executors/worker_stderr.hpp"

#include "engine/executors/line_framer.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <array>

namespace warpsmith
{

namespace asio = boost::asio;

asio::awaitable<void> read_stderr(std::shared_ptr<stderr_state> s)
{
    std::array<char, 4096> buf;
    line_framer framer(max_stderr_line, line_framer::overflow_policy::truncate);
    for (;;)
    {
        auto [ec, n] =
            co_await s->pipe.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
        if (ec)
            break;
        framer.feed(std::string_view(buf.data(), n));
        while (auto line = framer.next_line())
            s->add(std::move(*line));
    }
    if (auto rest = framer.take_partial(); !rest.empty())
        s->add(std::move(rest));
    s->done = true;
    s->eof_signal.cancel();
}

}  // namespace warpsmith
