#include "tests/agents/support/fake_openai_server.hpp"

#include <boost/json.hpp>

#include <deque>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace warpsmith::test
{

namespace json = boost::json;
namespace fs = std::filesystem;

namespace
{

std::string read_file(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    if (!f)
        throw std::runtime_error("fake_openai_server: cannot read " + p.string());
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

json::value launch_strings(const json::value& l)
{
    // Sidecars mix integers and strings; the schema wants strings.
    json::object out;
    for (const char* dim : {"grid", "block"})
    {
        json::array a;
        if (const auto* x = l.as_object().if_contains(dim))
            for (const auto& e : x->as_array())
                a.push_back(e.is_string() ? e : json::value(std::to_string(e.to_number<std::int64_t>())));
        out[dim] = std::move(a);
    }
    const auto* s = l.as_object().if_contains("shared_bytes");
    out["shared_bytes"] = !s               ? json::value("0")
                          : s->is_string() ? *s
                                           : json::value(std::to_string(s->to_number<std::int64_t>()));
    return out;
}

json::object proposal_of(const fs::path& sgemm_dir, const std::string& stem)
{
    const auto dir = sgemm_dir / "candidates";
    const auto side = json::parse(read_file(dir / (stem + ".json"))).as_object();
    json::array defines;
    if (const auto* d = side.if_contains("defines"); d && d->is_object())
        for (const auto& kv : d->get_object())
            defines.push_back(json::object{{"name", kv.key()}, {"value", kv.value()}});
    std::string rationale = side.contains("rationale") ? std::string(side.at("rationale").as_string()) : stem;
    return json::object{{"rationale", rationale},
                        {"kernel_source", read_file(dir / (stem + ".cu"))},
                        {"entry", side.contains("entry") ? side.at("entry") : json::value("sgemm")},
                        {"launch", launch_strings(side.at("launch"))},
                        {"per_case_overrides", json::array{}},
                        {"compile_options", json::array{}},
                        {"defines", std::move(defines)}};
}

std::string fenced(const json::object& proposal)
{
    json::object rest = proposal;
    const std::string source(rest.at("kernel_source").as_string());
    rest.erase("kernel_source");
    return "Here is the next kernel.\n\n```cuda\n" + source + "\n```\n\n```json\n" + json::serialize(rest) +
           "\n```\n";
}

/// The text of a message's content (a string, or an array of parts with "text").
std::string content_text(const json::value* c)
{
    if (!c)
        return {};
    if (c->is_string())
        return std::string(c->get_string());
    std::string out;
    if (c->is_array())
        for (const auto& p : c->get_array())
            if (p.is_object())
                if (const auto* t = p.get_object().if_contains("text"); t && t->is_string())
                    out += t->get_string();
    return out;
}

struct parsed_request
{
    bool responses = false;
    std::string model;
    bool stream = false;
    bool schema = false;
    bool tools = false;
    std::set<std::string> tool_names;  ///< The function tools offered.
    bool stream_usage = false;
    std::vector<std::string> user_texts;
    int tool_results = 0;
    std::string task, mode;
    bool web_search = false;
    bool encrypted_reasoning = false;  // include reasoning.encrypted_content
    int branch = 0, iteration = 0;     ///< From the tag of a proposal round.
};

parsed_request parse_request(const std::string& target, const json::object& body)
{
    parsed_request r;
    r.responses = target.find("/responses") != std::string::npos;
    if (const auto* m = body.if_contains("model"); m && m->is_string())
        r.model = std::string(m->get_string());
    if (const auto* s = body.if_contains("stream"); s && s->is_bool())
        r.stream = s->get_bool();
    if (const auto* so = body.if_contains("stream_options"); so && so->is_object())
        r.stream_usage = so->get_object().contains("include_usage");
    const auto* tc = body.if_contains("tool_choice");
    const bool tools_none = tc && tc->is_string() && tc->get_string() == "none";
    if (const auto* t = body.if_contains("tools");
        t && t->is_array() && !t->get_array().empty() && !tools_none)
        for (const auto& tool : t->get_array())
        {
            const auto* type = tool.is_object() ? tool.get_object().if_contains("type") : nullptr;
            if (type && *type == "function")
            {
                r.tools = true;
                // Responses: {"type": "function", "name"}; chat: {"type": "function", "function": {"name"}}.
                const json::object& o = tool.get_object();
                const json::value* name = o.if_contains("name");
                if (const auto* f = o.if_contains("function"); f && f->is_object())
                    name = f->get_object().if_contains("name");
                if (name && name->is_string())
                    r.tool_names.emplace(name->get_string());
            }
            else if (type && type->is_string() &&
                     std::string_view(type->get_string()).rfind("web_search", 0) == 0)
                r.web_search = true;
        }
    if (const auto* inc = body.if_contains("include"); inc && inc->is_array())
        for (const auto& x : inc->get_array())
            r.encrypted_reasoning = r.encrypted_reasoning || x == "reasoning.encrypted_content";
    if (r.responses)
    {
        if (const auto* t = body.if_contains("text"); t && t->is_object())
            if (const auto* f = t->get_object().if_contains("format"); f && f->is_object())
                r.schema = f->get_object().contains("type") && f->get_object().at("type") == "json_schema";
        if (const auto* in = body.if_contains("input"); in && in->is_array())
            for (const auto& item : in->get_array())
            {
                if (!item.is_object())
                    continue;
                const auto& o = item.get_object();
                if (o.contains("type") && o.at("type") == "function_call_output")
                    ++r.tool_results;
                else if (o.contains("role") && o.at("role") == "user")
                    r.user_texts.push_back(content_text(o.if_contains("content")));
            }
        else if (in && in->is_string())
            r.user_texts.emplace_back(in->get_string());
    }
    else
    {
        if (const auto* f = body.if_contains("response_format"); f && f->is_object())
            r.schema = f->get_object().contains("type") && f->get_object().at("type") == "json_schema";
        if (const auto* ms = body.if_contains("messages"); ms && ms->is_array())
            for (const auto& m : ms->get_array())
            {
                if (!m.is_object() || !m.get_object().contains("role"))
                    continue;
                const auto& role = m.get_object().at("role");
                if (role == "tool")
                    ++r.tool_results;
                else if (role == "user")
                    r.user_texts.push_back(content_text(m.get_object().if_contains("content")));
            }
    }
    if (!r.user_texts.empty())
    {
        static const std::regex tag(
            R"(\[warpsmith task=([a-z_-]+)(?: mode=([a-z_-]+))?(?: branch=([0-9]+) iteration=([0-9]+))?)");
        std::smatch m;
        if (std::regex_search(r.user_texts.front(), m, tag))
        {
            r.task = m[1].str();
            r.mode = m[2].str();
            if (m[3].matched)
            {
                r.branch = std::stoi(m[3].str());
                r.iteration = std::stoi(m[4].str());
            }
        }
    }
    return r;
}

std::string sse(const std::string& event, const json::value& data)
{
    return (event.empty() ? std::string() : "event: " + event + "\n") + "data: " + json::serialize(data) +
           "\n\n";
}

}  // namespace

fs::path default_sgemm_dir()
{
    if (const char* d = std::getenv("WARPSMITH_SGEMM_DIR"); d && *d)
        return d;
    std::error_code ec;
    if (fs::is_directory("bench/workloads/sgemm/candidates", ec))
        return fs::absolute("bench/workloads/sgemm");
    return fs::path(WARPSMITH_SOURCE_DIR) / "bench" / "workloads" / "sgemm";
}

std::string sgemm_proposal_json(const fs::path& sgemm_dir, const std::string& stem)
{
    return json::serialize(proposal_of(sgemm_dir, stem));
}

struct fake_openai_server::impl
{
    fake_openai_options opts;
    mutable std::mutex mutex;
    std::deque<openai_fault> faults;
    std::size_t script_pos = 0;
    std::map<std::string, int> tasks;
    std::map<std::string, int> proposed;
    std::vector<std::string> rejected;
    int next_id = 1;
    std::string inference_text;  // the inference JSON (cached)
    std::mt19937 jitter_rng{std::random_device{}()};

    std::chrono::milliseconds jitter()
    {
        if (opts.latency_jitter.count() <= 0)
            return std::chrono::milliseconds(0);
        return std::chrono::milliseconds(
            std::uniform_int_distribution<long long>(0, opts.latency_jitter.count())(jitter_rng));
    }

    std::string next_stem(bool allow_break, bool advance, const parsed_request& r)
    {
        // By round: a position fixed by the tag, the same in every run (follow-ups move on by one).
        std::size_t pos = opts.answer_by_round ? static_cast<std::size_t>(r.iteration * 5 + r.branch * 3) +
                                                     r.user_texts.size() - 1
                                               : script_pos;
        if (opts.answer_by_round)
            advance = false;
        for (std::size_t tries = 0; tries < opts.script.size() * 2; ++tries)
        {
            const auto& s = opts.script[pos % opts.script.size()];
            ++pos;
            const bool is_break = s == "schema-break";
            const bool invalid = s.find("invalid") != std::string::npos;
            if ((is_break || invalid) && !allow_break)
                continue;
            if (advance)
                script_pos = pos;
            return s;
        }
        return "05-2d-blocktiling";
    }

    json::object inference_doc() const
    {
        const auto ref = read_file(opts.sgemm_dir / "reference.cu");
        const auto init = read_file(opts.sgemm_dir / "initial.cu");
        auto param = [](const char* n, const char* kind, const char* dir, const char* count)
        {
            return json::object{{"name", n},
                                {"kind", kind},
                                {"type", std::string(kind) == "scalar" ? "int32" : "float32"},
                                {"dir", dir},
                                {"count", count}};
        };
        auto value_list = [](int m, int n, int k)
        {
            return json::array{json::object{{"name", "M"}, {"value", m}},
                               json::object{{"name", "N"}, {"value", n}},
                               json::object{{"name", "K"}, {"value", k}}};
        };
        return json::object{
            {"name", "sgemm_rect"},
            {"signature",
             json::object{{"entry", "sgemm"},
                          {"params",
                           json::array{param("M", "scalar", "", ""),
                                       param("N", "scalar", "", ""),
                                       param("K", "scalar", "", ""),
                                       param("A", "buffer", "in", "M*K"),
                                       param("B", "buffer", "in", "K*N"),
                                       param("C", "buffer", "out", "M*N")}}}},
            {"tolerance", json::object{{"rtol", 1e-3}, {"atol", 1e-3}}},
            {"cases",
             json::array{
                 json::object{
                     {"name", "37x61x19"}, {"role", "correctness"}, {"values", value_list(37, 61, 19)}},
                 json::object{
                     {"name", "129x257x65"}, {"role", "correctness"}, {"values", value_list(129, 257, 65)}},
                 json::object{{"name", "2048x1024x512"},
                              {"role", "performance"},
                              {"values", value_list(2048, 1024, 512)}}}},
            {"reference_source", ref},
            {"launch",
             json::object{{"grid", json::array{"ceil_div(N,16)", "ceil_div(M,16)", "1"}},
                          {"block", json::array{"16", "16", "1"}},
                          {"shared_bytes", "0"}}},
            {"initial_source", init},
            {"initial_launch",
             json::object{{"grid", json::array{"ceil_div(N,32)", "ceil_div(M,32)", "1"}},
                          {"block", json::array{"32", "32", "1"}},
                          {"shared_bytes", "0"}}}};
    }

    struct answer
    {
        std::string text;
        std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
    };

    answer decide(const parsed_request& r)
    {
        answer a;
        const bool followup = r.user_texts.size() > 1;
        if (r.task == "infer")
        {
            ++tasks[followup ? "answer_followup" : "infer"];
            const auto doc = json::serialize(inference_doc());
            a.text = r.schema ? doc : "```json\n" + doc + "\n```\n";
            return a;
        }
        if (r.task != "propose")
        {
            ++tasks["other"];
            a.text = "I am a fake model server.";
            return a;
        }
        if (r.tools && opts.tool_calls && r.tool_results == 0 && !followup)
        {
            ++tasks["propose"];
            const auto stem = next_stem(r.mode != "repair", false, r);
            const auto src = stem == "schema-break"
                                 ? std::string("extern \"C\" __global__ void sgemm() {}")
                                 : read_file(opts.sgemm_dir / "candidates" / (stem + ".cu"));
            a.calls.emplace_back("compile",
                                 json::serialize(json::object{{"kernel_source", src}, {"entry", "sgemm"}}));
            static const std::regex id(R"(\bc[0-9]{4}\b)");
            std::smatch m;
            if (std::regex_search(r.user_texts.front(), m, id))
                a.calls.emplace_back("history", json::serialize(json::object{{"id", m[0].str()}}));
            else
                a.calls.emplace_back("gpu_properties", "{}");
            // optimize --use-nsight offers a profile tool: ask for the current best's counters on
            // the largest case.
            static const std::regex best(R"(## Current best[^\n]*\n(c[0-9]{4}))");
            if (r.tool_names.count("profile") && std::regex_search(r.user_texts.front(), m, best))
            {
                a.calls.emplace_back("profile",
                                     json::serialize(json::object{{"id", m[1].str()}, {"case", ""}}));
                ++tasks["profile_call"];
            }
            return a;
        }
        ++tasks[followup ? "answer_followup" : r.tool_results > 0 ? "tool_followup" : "propose"];
        const auto stem = next_stem(!followup && r.mode != "repair", true, r);
        ++proposed[stem];
        if (stem == "schema-break")
        {
            a.text = R"({"rationale": "forgot the launch plan", "kernel_source": 42, "entry": "sgemm"})";
            return a;
        }
        const auto doc = proposal_of(opts.sgemm_dir, stem);
        a.text = r.schema ? json::serialize(doc) : fenced(doc);
        return a;
    }

    json::object usage_json(const parsed_request& r,
                            std::size_t in_bytes,
                            const std::string& text,
                            bool responses) const
    {
        const std::int64_t in = static_cast<std::int64_t>(in_bytes / 4) + 1;
        const std::int64_t cached = r.tool_results > 0 ? in / 2 : 0;
        const std::int64_t out = static_cast<std::int64_t>(text.size() / 4) + 10;
        const std::int64_t reasoning = 32;
        if (responses)
            return json::object{{"input_tokens", in},
                                {"input_tokens_details", json::object{{"cached_tokens", cached}}},
                                {"output_tokens", out + reasoning},
                                {"output_tokens_details", json::object{{"reasoning_tokens", reasoning}}},
                                {"total_tokens", in + out + reasoning}};
        return json::object{{"prompt_tokens", in},
                            {"completion_tokens", out + reasoning},
                            {"total_tokens", in + out + reasoning},
                            {"prompt_tokens_details", json::object{{"cached_tokens", cached}}},
                            {"completion_tokens_details", json::object{{"reasoning_tokens", reasoning}}}};
    }

    response_plan respond(const recorded_request& req)
    {
        std::lock_guard lock(mutex);
        response_plan plan;
        if (req.method != "POST" || (req.target.find("/responses") == std::string::npos &&
                                     req.target.find("/chat/completions") == std::string::npos))
            return response_plan::json(
                404,
                R"({"error": {"message": "Unknown endpoint", "type": "invalid_request_error", "code": "unknown_url"}})");
        if (!opts.api_key.empty() && req.header("authorization") != "Bearer " + opts.api_key)
        {
            // A leaky server: it echoes the key it got. The client must redact it.
            const auto got = req.header("authorization");
            return response_plan::json(
                401,
                json::serialize(json::object{
                    {"error",
                     json::object{{"message", "Incorrect API key provided: " + got.substr(got.find(' ') + 1)},
                                  {"type", "invalid_request_error"},
                                  {"code", "invalid_api_key"}}}}));
        }
        boost::system::error_code ec;
        auto bv = json::parse(req.body, ec);
        if (ec || !bv.is_object())
            return response_plan::json(
                400,
                R"({"error": {"message": "We could not parse the JSON body of your request.", "type": "invalid_request_error", "param": null, "code": null}})");
        if (opts.strict)
        {
            const bool responses_api = req.target.find("/responses") != std::string::npos;
            const auto problem = responses_api ? check_responses_request(bv.as_object(), opts.rules)
                                               : check_chat_request(bv.as_object(), opts.rules);
            if (problem)
            {
                rejected.push_back(problem->body());
                return response_plan::json(problem->status, problem->body());
            }
        }
        std::optional<openai_fault> fault;
        if (!faults.empty())
        {
            fault = faults.front();
            faults.pop_front();
        }
        const auto r = parse_request(req.target, bv.as_object());
        if (!opts.models.empty() && !opts.models.count(r.model))
            fault = openai_fault::not_found;
        if (!r.responses && r.schema && !opts.chat_json_schema)
            return response_plan::json(
                400,
                R"({"error": {"message": "response_format json_schema is not supported by this server", "type": "invalid_request_error"}})");

        if (fault)
        {
            switch (*fault)
            {
                case openai_fault::rate_limit:
                    plan = response_plan::json(
                        429,
                        R"({"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}})");
                    plan.headers.emplace_back("Retry-After", std::to_string(opts.retry_after_s));
                    return plan;
                case openai_fault::server_error:
                    return response_plan::json(
                        500,
                        R"({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}})");
                case openai_fault::unavailable:
                    return response_plan::json(
                        503,
                        R"({"error": {"message": "The engine is currently overloaded.", "type": "server_error"}})");
                case openai_fault::unauthorized:
                    return response_plan::json(
                        401,
                        R"({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}})");
                case openai_fault::not_found:
                    return response_plan::json(
                        404,
                        json::serialize(json::object{
                            {"error",
                             json::object{{"message",
                                           "The model `" + r.model +
                                               "` does not exist or you do not have access to it."},
                                          {"type", "invalid_request_error"},
                                          {"code", "model_not_found"}}}}));
                case openai_fault::insufficient_quota:
                    return response_plan::json(
                        429,
                        R"({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})");
                case openai_fault::malformed_json:
                    return response_plan::json(
                        200, R"({"id": "resp_broken", "output": [{"type": "message", "content": [)");
                default:
                    break;
            }
        }

        const auto ans = decide(r);
        const int id = next_id++;
        // By round, the answer's ids (response, items, tool calls) are the round's too: the same
        // question gets the same answer, ids included.
        const std::string sid = opts.answer_by_round && r.task == "propose"
                                    ? "b" + std::to_string(r.branch) + "i" + std::to_string(r.iteration) +
                                          "r" + std::to_string(r.user_texts.size()) + "t" +
                                          std::to_string(r.tool_results)
                                    : std::to_string(id);
        json::object usage = usage_json(r, req.body.size(), ans.text, r.responses);

        if (r.responses)
        {
            json::object reasoning_item{
                {"type", "reasoning"}, {"id", "rs_" + sid}, {"summary", json::array{}}};
            if (r.encrypted_reasoning)
                reasoning_item["encrypted_content"] = "enc_" + sid;
            json::array output{reasoning_item};
            const bool reasoning_only = fault == openai_fault::reasoning_only;
            const bool searched = r.web_search && ans.calls.empty() && !reasoning_only;
            if (searched)
                output.push_back(json::object{
                    {"type", "web_search_call"},
                    {"id", "ws_" + sid},
                    {"status", "completed"},
                    {"action",
                     json::object{{"type", "search"}, {"query", "CUDA shared memory bank conflicts"}}}});
            for (std::size_t i = 0; i < ans.calls.size() && !reasoning_only; ++i)
                output.push_back(json::object{{"type", "function_call"},
                                              {"id", "fc_" + sid + "_" + std::to_string(i)},
                                              {"call_id", "call_" + sid + "_" + std::to_string(i)},
                                              {"name", ans.calls[i].first},
                                              {"arguments", ans.calls[i].second},
                                              {"status", "completed"}});
            json::array annotations;
            if (searched)
                for (const char* page : {"https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/",
                                         "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"})
                    annotations.push_back(
                        json::object{{"type", "url_citation"},
                                     {"url", page},
                                     {"title", "CUDA documentation"},
                                     {"start_index", 0},
                                     {"end_index", std::min<std::size_t>(ans.text.size(), 8)}});
            if (ans.calls.empty() && !reasoning_only)
                output.push_back(json::object{
                    {"type", "message"},
                    {"id", "msg_" + sid},
                    {"status", "completed"},
                    {"role", "assistant"},
                    {"content",
                     json::array{json::object{
                         {"type", "output_text"}, {"text", ans.text}, {"annotations", annotations}}}}});
            json::object resp{{"id", "resp_" + sid},
                              {"object", "response"},
                              {"created_at", 1700000000},
                              {"status", "completed"},
                              {"model", r.model},
                              {"output", output},
                              {"usage", usage}};
            if (reasoning_only)
            {
                resp["status"] = "incomplete";
                resp["incomplete_details"] = json::object{{"reason", "max_output_tokens"}};
            }
            if (fault == openai_fault::response_failed)
            {
                resp["status"] = "failed";
                resp["output"] = json::array{};
                resp["error"] = json::object{{"code", "server_error"},
                                             {"message", "The model failed to generate a response."}};
            }
            const std::string terminal = fault == openai_fault::response_failed ? "response.failed"
                                         : reasoning_only                       ? "response.incomplete"
                                                                                : "response.completed";
            if (!r.stream)
                plan = response_plan::json(200, json::serialize(resp));
            else
            {
                std::vector<body_part> parts;
                int seq = 0;
                json::object created = resp;
                created["status"] = "in_progress";
                created["output"] = json::array{};
                created.erase("usage");
                parts.emplace_back(sse(
                    "response.created",
                    json::object{
                        {"type", "response.created"}, {"sequence_number", seq++}, {"response", created}}));
                if (fault == openai_fault::long_silence)
                {
                    // Silence, optionally broken by SSE comments (what servers send to keep a
                    // connection and the client's idle timer alive).
                    if (opts.keepalive_interval.count() > 0)
                        for (auto waited = std::chrono::milliseconds(0); waited < opts.silence;
                             waited += opts.keepalive_interval)
                            parts.emplace_back(std::string(": keep-alive\n\n"), opts.keepalive_interval);
                    else
                        parts.emplace_back(std::string(": done waiting\n\n"), opts.silence);
                }
                const bool stream_output = fault != openai_fault::response_failed;
                for (std::size_t i = 0; stream_output && i < output.size(); ++i)
                {
                    const auto& item = output[i].as_object();
                    parts.emplace_back(sse("response.output_item.added",
                                           json::object{{"type", "response.output_item.added"},
                                                        {"sequence_number", seq++},
                                                        {"output_index", i},
                                                        {"item", item}}));
                    if (item.at("type") == "message")
                        for (std::size_t p = 0; p < ans.text.size();
                             p += static_cast<std::size_t>(opts.stream_delta_bytes))
                            parts.emplace_back(sse(
                                "response.output_text.delta",
                                json::object{{"type", "response.output_text.delta"},
                                             {"sequence_number", seq++},
                                             {"item_id", "msg_" + sid},
                                             {"output_index", i},
                                             {"content_index", 0},
                                             {"delta",
                                              ans.text.substr(
                                                  p, static_cast<std::size_t>(opts.stream_delta_bytes))}}));
                    if (item.at("type") == "function_call")
                        parts.emplace_back(
                            sse("response.function_call_arguments.delta",
                                json::object{{"type", "response.function_call_arguments.delta"},
                                             {"sequence_number", seq++},
                                             {"output_index", i},
                                             {"delta", item.at("arguments")}}));
                    parts.emplace_back(sse("response.output_item.done",
                                           json::object{{"type", "response.output_item.done"},
                                                        {"sequence_number", seq++},
                                                        {"output_index", i},
                                                        {"item", item}}));
                }
                if (fault == openai_fault::error_event || fault == openai_fault::rate_limit_event)
                    parts.emplace_back(
                        sse("error",
                            json::object{
                                {"type", "error"},
                                {"sequence_number", seq++},
                                {"code",
                                 fault == openai_fault::error_event ? "server_error" : "rate_limit_exceeded"},
                                {"message",
                                 fault == openai_fault::error_event ? "The server had an error."
                                                                    : "Rate limit reached for requests."}}));
                else if (fault != openai_fault::stream_cut)
                    parts.emplace_back(sse(
                        terminal,
                        json::object{{"type", terminal}, {"sequence_number", seq++}, {"response", resp}}));
                plan = response_plan::sse(std::move(parts));
            }
        }
        else
        {
            json::array calls;
            for (std::size_t i = 0; i < ans.calls.size(); ++i)
                calls.push_back(json::object{
                    {"id", "call_" + sid + "_" + std::to_string(i)},
                    {"type", "function"},
                    {"function",
                     json::object{{"name", ans.calls[i].first}, {"arguments", ans.calls[i].second}}}});
            const std::string finish = ans.calls.empty() ? "stop" : "tool_calls";
            if (!r.stream)
            {
                json::object msg{
                    {"role", "assistant"},
                    {"content", ans.calls.empty() ? json::value(ans.text) : json::value(nullptr)}};
                if (!ans.calls.empty())
                    msg["tool_calls"] = calls;
                json::object resp{
                    {"id", "chatcmpl-" + sid},
                    {"object", "chat.completion"},
                    {"created", 1700000000},
                    {"model", r.model},
                    {"choices",
                     json::array{json::object{{"index", 0}, {"message", msg}, {"finish_reason", finish}}}},
                    {"usage", usage}};
                plan = response_plan::json(200, json::serialize(resp));
            }
            else
            {
                std::vector<body_part> parts;
                auto chunk = [&](json::object delta, json::value finish_reason)
                {
                    return sse("",
                               json::object{
                                   {"id", "chatcmpl-" + sid},
                                   {"object", "chat.completion.chunk"},
                                   {"created", 1700000000},
                                   {"model", r.model},
                                   {"choices",
                                    json::array{json::object{{"index", 0},
                                                             {"delta", std::move(delta)},
                                                             {"finish_reason", std::move(finish_reason)}}}}});
                };
                parts.emplace_back(chunk(json::object{{"role", "assistant"}, {"content", ""}}, nullptr));
                for (std::size_t p = 0; p < ans.text.size();
                     p += static_cast<std::size_t>(opts.stream_delta_bytes))
                    parts.emplace_back(chunk(
                        json::object{{"content",
                                      ans.text.substr(p, static_cast<std::size_t>(opts.stream_delta_bytes))}},
                        nullptr));
                for (std::size_t i = 0; i < ans.calls.size(); ++i)
                {
                    // Name first, then the arguments in two fragments (as servers do).
                    const auto& args = ans.calls[i].second;
                    const auto half = args.size() / 2;
                    parts.emplace_back(chunk(
                        json::object{{"tool_calls",
                                      json::array{json::object{
                                          {"index", i},
                                          {"id", "call_" + sid + "_" + std::to_string(i)},
                                          {"type", "function"},
                                          {"function",
                                           json::object{{"name", ans.calls[i].first}, {"arguments", ""}}}}}}},
                        nullptr));
                    parts.emplace_back(chunk(
                        json::object{{"tool_calls",
                                      json::array{json::object{
                                          {"index", i},
                                          {"function", json::object{{"arguments", args.substr(0, half)}}}}}}},
                        nullptr));
                    parts.emplace_back(chunk(
                        json::object{{"tool_calls",
                                      json::array{json::object{
                                          {"index", i},
                                          {"function", json::object{{"arguments", args.substr(half)}}}}}}},
                        nullptr));
                }
                if (fault == openai_fault::error_event || fault == openai_fault::rate_limit_event)
                    parts.emplace_back(
                        sse("",
                            json::object{{"error",
                                          json::object{{"message",
                                                        fault == openai_fault::error_event
                                                            ? "The server had an error."
                                                            : "Rate limit reached for requests."},
                                                       {"code",
                                                        fault == openai_fault::error_event
                                                            ? json::value(nullptr)
                                                            : json::value("rate_limit_exceeded")}}}}));
                else if (fault != openai_fault::stream_cut)
                {
                    parts.emplace_back(chunk(json::object{}, json::value(finish)));
                    if (r.stream_usage)
                        parts.emplace_back(sse("",
                                               json::object{{"id", "chatcmpl-" + sid},
                                                            {"object", "chat.completion.chunk"},
                                                            {"model", r.model},
                                                            {"choices", json::array{}},
                                                            {"usage", usage}}));
                    parts.emplace_back(std::string("data: [DONE]\n\n"));
                }
                plan = response_plan::sse(std::move(parts));
            }
        }
        plan.delay_before_headers = opts.latency + jitter();
        if (opts.round_latency && r.task == "propose")
            plan.delay_before_headers += opts.round_latency(r.branch, r.iteration);
        if (fault == openai_fault::slow)
            plan.delay_before_headers = opts.slow_delay;
        if (fault == openai_fault::truncated)
        {
            std::size_t total = plan.body.size();
            for (const auto& p : plan.parts)
                total += p.data.size();
            plan.truncate_after = total / 2;
        }
        return plan;
    }
};

std::vector<std::string> default_script()
{
    // Every stem names a file pair in bench/workloads/sgemm/candidates (test_fake_answers checks
    // that each exists, reads as a proposal and compiles, except the one meant not to compile).
    return {"02-coalesced",
            "03-smem-tiled",
            "05-2d-blocktiling",
            "schema-break",
            "06-vectorized",
            "09-invalid-compile-error",
            "04-1d-blocktiling",
            "07-warptile-128x128x8-t8x16",
            "08-warptile-128x128x8-t8x8"};
}

fake_openai_server::fake_openai_server(fake_openai_options opts, transport t)
    : impl_(std::make_shared<impl>())
{
    if (opts.sgemm_dir.empty())
        opts.sgemm_dir = default_sgemm_dir();
    if (opts.script.empty())
        opts.script = default_script();
    impl_->opts = std::move(opts);
    auto self = impl_;
    request_handler h = [self](const recorded_request& r) { return self->respond(r); };
    server_ = std::make_unique<fake_http_server>(std::move(h), t);
}

fake_openai_server::~fake_openai_server()
{
    stop();
}

std::uint16_t fake_openai_server::port() const
{
    return server_->port();
}

std::string fake_openai_server::base_url() const
{
    return server_->base_url() + "/v1";
}

fs::path fake_openai_server::ca_file() const
{
    return server_->ca_file();
}

void fake_openai_server::inject(openai_fault f, int count)
{
    std::lock_guard lock(impl_->mutex);
    for (int i = 0; i < count; ++i)
        impl_->faults.push_back(f);
}

std::size_t fake_openai_server::pending_faults() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->faults.size();
}

std::size_t fake_openai_server::request_count() const
{
    return server_->request_count();
}

std::size_t fake_openai_server::max_concurrent_requests() const
{
    return server_->max_concurrent_requests();
}

std::vector<recorded_request> fake_openai_server::requests() const
{
    return server_->requests();
}

std::map<std::string, int> fake_openai_server::task_counts() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->tasks;
}

std::map<std::string, int> fake_openai_server::proposals() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->proposed;
}

std::vector<std::string> fake_openai_server::rejected() const
{
    std::lock_guard lock(impl_->mutex);
    return impl_->rejected;
}

bool fake_openai_server::stop()
{
    return server_ ? server_->stop() : true;
}

}  // namespace warpsmith::test
