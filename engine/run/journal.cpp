#include "engine/run/journal.hpp"

#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace warpsmith
{

namespace json = boost::json;

journal_contents parse_journal(std::string_view text, std::string_view origin)
{
    journal_contents out;
    std::size_t pos = 0;
    std::size_t line_no = 0;
    while (pos < text.size())
    {
        ++line_no;
        const auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
        {
            // No newline: the write of this line was cut short (kill -9, full disk). Not an event.
            out.torn_tail = true;
            break;
        }
        const auto line = text.substr(pos, nl - pos);
        pos = nl + 1;
        out.complete_bytes = pos;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        boost::system::error_code ec;
        // Journals written before the writer repaired text may hold bytes that are not UTF-8 (a
        // compile log cut inside a character): they are still the run's events.
        json::parse_options opts;
        opts.allow_invalid_utf8 = true;
        auto v = json::parse(line, ec, {}, opts);
        if (ec || !v.is_object())
            throw user_error(std::string(origin) + ":" + std::to_string(line_no) +
                             ": not a JSON object (the journal is damaged)");
        out.events.push_back(std::move(v.get_object()));
    }
    return out;
}

journal_contents read_journal(const std::filesystem::path& path)
{
    return parse_journal(read_text_file(path), path.string());
}

journal_writer::journal_writer(const std::filesystem::path& path, std::int64_t next_seq)
    : path_(path), next_seq_(next_seq)
{
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw user_error("cannot open " + path.string() + " for writing: " + std::strerror(errno));
    // Cut a torn last line off so that the next event does not continue it.
    std::error_code fec;
    const auto size = std::filesystem::file_size(path, fec);
    if (!fec && size > 0)
    {
        const auto text = read_text_file(path);
        const auto complete = parse_journal(text, path.string()).complete_bytes;
        if (complete < text.size() && ::ftruncate(fd_, static_cast<off_t>(complete)) != 0)
            throw user_error("cannot repair the torn last line of " + path.string() + ": " +
                             std::strerror(errno));
    }
}

journal_writer::~journal_writer()
{
    if (fd_ >= 0)
        ::close(fd_);
}

void journal_writer::append(json::object event)
{
    json::object stamped;
    stamped.reserve(event.size() + 2);
    stamped["seq"] = next_seq_;
    stamped["time"] = utc_timestamp();
    for (auto& kv : event)
        stamped[kv.key()] = std::move(kv.value());
    std::string line = to_json_text(stamped);
    line += '\n';
    std::size_t done = 0;
    while (done < line.size())
    {
        const auto n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            throw_system_error(boost::system::error_code(errno, boost::system::generic_category()),
                               "writing " + path_.string());
        }
        done += static_cast<std::size_t>(n);
    }
    ++next_seq_;
}

void journal_writer::sync()
{
    if (fd_ >= 0)
        ::fdatasync(fd_);
}

std::string utc_timestamp()
{
    const auto now = std::chrono::system_clock::now();
    const auto t = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf,
                  sizeof buf,
                  "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                  tm.tm_year + 1900,
                  tm.tm_mon + 1,
                  tm.tm_mday,
                  tm.tm_hour,
                  tm.tm_min,
                  tm.tm_sec,
                  static_cast<int>(ms));
    return buf;
}

}  // namespace warpsmith
