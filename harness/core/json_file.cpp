#include "harness/core/json_file.hpp"

#include "harness/core/error.hpp"
#include "harness/core/utf8_text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/stream_parser.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace warpsmith
{

namespace
{

std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset)
{
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    {
        if (text[i] == '\n')
        {
            ++line;
            col = 1;
        }
        else
        {
            ++col;
        }
    }
    return {line, col};
}

void pretty_into(std::string& out, const boost::json::value& v, int indent)
{
    auto pad = [&](int n) { out.append(static_cast<std::size_t>(n) * 2, ' '); };
    switch (v.kind())
    {
        case boost::json::kind::object:
        {
            const auto& obj = v.get_object();
            if (obj.empty())
            {
                out += "{}";
                return;
            }
            out += "{\n";
            bool first = true;
            for (const auto& kv : obj)
            {
                if (!first)
                    out += ",\n";
                first = false;
                pad(indent + 1);
                out += boost::json::serialize(boost::json::string(kv.key()));
                out += ": ";
                pretty_into(out, kv.value(), indent + 1);
            }
            out += "\n";
            pad(indent);
            out += "}";
            return;
        }
        case boost::json::kind::array:
        {
            const auto& arr = v.get_array();
            if (arr.empty())
            {
                out += "[]";
                return;
            }
            // Short arrays of scalars stay on one line: launch plans and shapes read better that way.
            bool scalars = arr.size() <= 16;
            for (const auto& e : arr)
                scalars = scalars && !e.is_object() && !e.is_array();
            if (scalars)
            {
                out += boost::json::serialize(v);
                return;
            }
            out += "[\n";
            bool first = true;
            for (const auto& e : arr)
            {
                if (!first)
                    out += ",\n";
                first = false;
                pad(indent + 1);
                pretty_into(out, e, indent + 1);
            }
            out += "\n";
            pad(indent);
            out += "]";
            return;
        }
        default:
            out += boost::json::serialize(v);
            return;
    }
}

}  // namespace

boost::json::value parse_json(std::string_view text, std::string_view origin)
{
    boost::json::parse_options opts;
    opts.allow_comments = false;
    opts.allow_trailing_commas = false;
    // Text others wrote (a Latin-1 comment in a workload, a record written before the writers
    // repaired text) is read; whatever is written again is repaired (to_json_text).
    opts.allow_invalid_utf8 = true;
    boost::json::stream_parser p({}, opts);
    boost::system::error_code ec;
    std::size_t consumed = p.write_some(text.data(), text.size(), ec);
    if (!ec && consumed < text.size())
    {
        // Trailing content after a complete value.
        ec = boost::json::error::extra_data;
    }
    if (!ec)
    {
        p.finish(ec);
        consumed = text.size();
    }
    if (ec)
    {
        auto [line, col] = line_and_column(text, consumed);
        throw user_error(std::string(origin) + ":" + std::to_string(line) + ":" + std::to_string(col) +
                         ": invalid JSON: " + ec.message());
    }
    return p.release();
}

std::string read_text_file(const std::filesystem::path& path)
{
    std::error_code fec;
    if (std::filesystem::is_directory(path, fec))
        throw user_error(path.string() + ": is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw user_error(path.string() + ": cannot read file (" + std::strerror(errno) + ")");
    std::ostringstream ss;
    ss << in.rdbuf();
    return std::move(ss).str();
}

boost::json::value read_json_file(const std::filesystem::path& path)
{
    return parse_json(read_text_file(path), path.string());
}

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes)
{
    auto dir = path.parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir);
    // mkostemp: a fresh name per call (six random characters, created with O_EXCL, so never
    // through a link planted in a folder from elsewhere), hence concurrent writers of one path
    // (threads or processes) never share a temporary file; the last rename wins and no reader sees
    // a torn file.
    std::string tmp = path.string() + ".tmp.XXXXXX";
    int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd >= 0 && ::fchmod(fd, 0644) != 0)
    {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        errno = err;
        fd = -1;
    }
    if (fd < 0)
        throw user_error(path.string() + ": cannot write file (" + std::strerror(errno) + ")");
    std::size_t done = 0;
    while (done < bytes.size())
    {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0)
        {
            if (errno == EINTR)
                continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw user_error(path.string() + ": write failed (" + std::strerror(err) + ")");
        }
        done += static_cast<std::size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0)
    {
        int err = errno;
        ::unlink(tmp.c_str());
        throw user_error(path.string() + ": cannot rename into place (" + std::strerror(err) + ")");
    }
}

std::string pretty_json(const boost::json::value& value)
{
    std::string out;
    pretty_into(out, value, 0);
    return json_safe_text(out);
}

std::string to_json_text(const boost::json::value& value)
{
    return json_safe_text(boost::json::serialize(value));
}

void write_json_file(const std::filesystem::path& path, const boost::json::value& value)
{
    std::string text = pretty_json(value);
    text += '\n';
    write_file_atomic(path, text);
}

}  // namespace warpsmith
