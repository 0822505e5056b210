#include "engine/search/background_writer.hpp"

#include "harness/core/log.hpp"

#include <boost/asio/post.hpp>

#include <exception>

namespace warpsmith
{

void background_writer::post(std::function<void()> write, std::string what)
{
    auto job = [write = std::move(write), what = std::move(what)]
    {
        try
        {
            write();
        }
        catch (const std::exception& e)
        {
            log_warn("cannot write the files of " + what + ": " + e.what());
        }
    };
    boost::asio::post(pool_, std::move(job));
}

}  // namespace warpsmith
