#pragma once

// Candidate files go to disk on a writer thread, in order, so that the search loop never waits for
// the disk; the journal (written on the loop's thread, one write(2) per event) is what resume
// relies on. A write that throws is logged as a warning naming what it wrote; the loop goes on.

#include <boost/asio/thread_pool.hpp>

#include <functional>
#include <string>

namespace warpsmith
{

class background_writer
{
public:
    /// Queues `write` behind every earlier write; `what` names it in the warning if it throws.
    void post(std::function<void()> write, std::string what);

    /// Waits for every queued write. No write may be posted afterwards.
    void finish() { pool_.join(); }

private:
    boost::asio::thread_pool pool_{1};
};

}  // namespace warpsmith
