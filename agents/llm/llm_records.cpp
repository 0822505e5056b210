#include "agents/llm/llm_records.hpp"

#include "harness/core/digest.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>

namespace warpsmith::llm
{

namespace json = boost::json;
namespace fs = std::filesystem;
using lenient::int_or;
using lenient::string_or;

namespace
{

std::string safe_purpose(const std::string& p)
{
    std::string out;
    for (char c : p)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return out.empty() ? "exchange" : out;
}

int leading_number(const std::string& name)
{
    int n = 0;
    std::size_t i = 0;
    for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i)
        n = n * 10 + (name[i] - '0');
    return i > 0 && i < name.size() && name[i] == '-' ? n : 0;
}

}  // namespace

std::string record_file_name(int seq, int branch, int iteration, const std::string& purpose)
{
    char buf[64];
    if (branch < 0)
        std::snprintf(buf, sizeof buf, "%04d-inference-", seq);
    else
        std::snprintf(buf, sizeof buf, "%04d-b%d-i%d-", seq, branch, iteration);
    return buf + safe_purpose(purpose) + ".json";
}

std::string mask_numbers(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (std::size_t i = 0; i < text.size();)
    {
        if (!digit(text[i]))
        {
            out += text[i++];
            continue;
        }
        while (i < text.size() &&
               (digit(text[i]) || (text[i] == '.' && i + 1 < text.size() && digit(text[i + 1]))))
            ++i;
        if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E') &&
            (digit(text[i + 1]) ||
             ((text[i + 1] == '-' || text[i + 1] == '+') && i + 2 < text.size() && digit(text[i + 2]))))
        {
            i += 2;
            while (i < text.size() && digit(text[i]))
                ++i;
        }
        out += '#';
    }
    return out;
}

std::string request_digest(const model_request& req)
{
    sha256_builder b;
    for (const auto& m : req.messages)
    {
        b.add(to_string(m.role));
        b.add(mask_numbers(m.content));
        for (const auto& c : m.tool_calls)
            b.add(c.name).add(mask_numbers(c.arguments));
        b.add(m.tool_call_id);
    }
    for (const auto& t : req.tools)
        b.add(t.name);
    return b.hex();
}

json::object make_record(int seq,
                         const model_request& req,
                         const model_response* resp,
                         const exchange_trace& trace)
{
    json::object timestamps{
        {"send", format_time(trace.t_send)},
        {"first_byte",
         trace.t_first_byte ? json::value(format_time(*trace.t_first_byte)) : json::value(nullptr)},
        {"complete", format_time(trace.t_complete)}};
    auto ms = [&](std::chrono::system_clock::time_point t)
    { return std::chrono::duration<double, std::milli>(t - trace.t_send).count(); };
    json::object latency{
        {"first_byte", trace.t_first_byte ? json::value(ms(*trace.t_first_byte)) : json::value(nullptr)},
        {"complete", ms(trace.t_complete)}};
    json::array calls;
    if (resp)
        for (const auto& c : resp->tool_calls)
            calls.push_back(c.to_json());
    json::object rec{{"format", record_format},
                     {"seq", seq},
                     {"branch", req.branch},
                     {"iteration", req.iteration},
                     {"purpose", req.purpose},
                     {"provider", trace.provider},
                     {"model", req.model},
                     {"url", trace.url},
                     {"stream", req.stream},
                     {"request_headers", trace.request_headers},
                     {"request_digest", request_digest(req)},
                     {"timestamps", std::move(timestamps)},
                     {"latency_ms", std::move(latency)},
                     {"http", json::object{{"status", trace.status}, {"attempts", trace.attempts}}},
                     {"request", trace.request_body},
                     {"response_body", trace.response_body},
                     {"events", trace.events},
                     {"response", resp ? json::value(resp->to_json()) : json::value(nullptr)},
                     {"tool_calls", std::move(calls)},
                     {"tool_results", json::array{}},
                     {"usage", resp ? json::value(usage_to_json(resp->usage)) : json::value(nullptr)},
                     {"error", trace.error.empty() ? json::value(nullptr) : json::value(trace.error)}};
    return rec;
}

record_writer::record_writer(fs::path dir, std::shared_ptr<const redactor> redact)
    : dir_(std::move(dir)), redact_(std::move(redact))
{
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
        throw user_error("cannot create " + dir_.string() + ": " + ec.message());
    for (const auto& e : fs::directory_iterator(dir_, ec))
        next_seq_ = std::max(next_seq_, leading_number(e.path().filename().string()) + 1);
    // A later session (the search after inference, a resumed run) adds to the same totals.
    if (fs::is_regular_file(dir_ / "usage.json", ec))
    {
        try
        {
            ledger_ = usage_ledger::from_json(read_json_file(dir_ / "usage.json"));
        }
        catch (const std::exception&)
        {
        }
    }
}

void record_writer::store(const std::string& file, const json::object& rec)
{
    const json::value v = redact_ ? redact_->apply(json::value(rec)) : json::value(rec);
    write_json_file(dir_ / file, v);
}

std::string record_writer::write(const model_request& req,
                                 const model_response* resp,
                                 const exchange_trace& trace)
{
    const int seq = next_seq_++;
    auto file = record_file_name(seq, req.branch, req.iteration, req.purpose);
    auto rec = make_record(seq, req, resp, trace);
    store(file, rec);
    if (resp)
    {
        ledger_.add(req.branch, resp->usage);
        json::object u = ledger_.to_json();
        write_json_file(dir_ / "usage.json", u);
        if (!resp->tool_calls.empty())
        {
            recent_[file] = std::move(rec);
            recent_order_.push_back(file);
            // Tool results arrive before the next exchange of the same branch; keep a few.
            while (recent_order_.size() > 64)
            {
                recent_.erase(recent_order_.front());
                recent_order_.erase(recent_order_.begin());
            }
        }
    }
    return file;
}

void record_writer::attach_tool_results(const std::string& file, json::array results)
{
    auto it = recent_.find(file);
    if (it == recent_.end())
        return;
    it->second["tool_results"] = std::move(results);
    store(file, it->second);
}

std::function<std::string(const model_request&, const model_response*, const exchange_trace&)>
record_writer::observer()
{
    return [this](const model_request& req, const model_response* resp, const exchange_trace& trace)
    { return write(req, resp, trace); };
}

std::vector<recorded_exchange> read_records(const fs::path& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw user_error(dir.string() + ": not a directory of llm/ records");
    std::vector<recorded_exchange> out;
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        const auto name = e.path().filename().string();
        if (e.path().extension() != ".json" || leading_number(name) == 0)
            continue;
        const auto v = read_json_file(e.path());
        if (!v.is_object() || string_or(v, "format") != record_format)
            throw user_error(e.path().string() + ": not a warpsmith llm record (format '" +
                             std::string(record_format) + "')");
        recorded_exchange r;
        r.seq = static_cast<int>(int_or(v, "seq"));
        r.branch = static_cast<int>(int_or(v, "branch", -1));
        r.iteration = static_cast<int>(int_or(v, "iteration"));
        r.purpose = string_or(v, "purpose");
        r.file = name;
        r.provider = string_or(v, "provider");
        r.model = string_or(v, "model");
        r.request_digest = string_or(v, "request_digest");
        const json::object* resp = lenient::object_at(v, "response");
        r.ok = resp != nullptr;
        if (r.ok)
            r.response = model_response::from_json(*resp);
        out.push_back(std::move(r));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    return out;
}

}  // namespace warpsmith::llm
