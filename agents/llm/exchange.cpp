#include "agents/llm/exchange.hpp"

#include "harness/core/utf8_text.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace warpsmith::llm
{

namespace json = boost::json;

exchange_step next_step(const model_response& resp, int tool_rounds_done, const exchange_settings& s)
{
    exchange_step step;
    if (!resp.tool_calls.empty())
        step.action = tool_rounds_done < s.max_tool_rounds ? exchange_step::kind::run_tools
                                                           : exchange_step::kind::withdraw_tools;
    else if (!resp.refusal.empty() && resp.text.empty())
        step.action = exchange_step::kind::refused;
    else
        step.action = exchange_step::kind::validate;
    return step;
}

boost::asio::awaitable<exchange_outcome> run_exchange(model_client& client,
                                                      model_request req,
                                                      tool_executor* tools,
                                                      answer_validator validate,
                                                      repair_renderer repair,
                                                      usage_reporter report_usage,
                                                      record_writer* records,
                                                      exchange_settings settings)
{
    exchange_outcome out;
    int tool_rounds = 0;
    if (tools && req.tools.empty())
        req.tools = tools->definitions();
    // An unusable answer costs a follow-up; when none is left the exchange ends with its problems.
    const auto count_unusable = [&](const std::vector<std::string>& problems)
    {
        if (out.answer_repairs >= settings.max_answer_repairs)
        {
            std::string list;
            for (const auto& p : problems)
                list += (list.empty() ? "" : "; ") + p;
            throw std::runtime_error("the model's answer could not be used after " +
                                     std::to_string(out.answer_repairs) + " follow-up" +
                                     (out.answer_repairs == 1 ? "" : "s") + ": " + list);
        }
        ++out.answer_repairs;
    };
    const auto ask_again = [&](const std::vector<std::string>& problems)
    {
        req.messages.push_back(message::user(repair(problems)));
        if (req.purpose.find("-followup") == std::string::npos)
            req.purpose += "-followup";
    };
    while (true)
    {
        model_request this_req = req;
        auto resp = co_await client.complete(std::move(this_req));
        ++out.requests;
        out.usage += resp.usage;
        if (!resp.record.empty())
            out.records.push_back(resp.record);
        for (const auto& c : resp.citations)
            if (std::none_of(out.citations.begin(),
                             out.citations.end(),
                             [&](const url_citation& seen) { return seen.url == c.url; }))
                out.citations.push_back(c);
        const bool budget_ok = report_usage ? report_usage(resp.usage) : true;

        const auto step = next_step(resp, tool_rounds, settings);
        if (step.action == exchange_step::kind::refused)
        {
            out.stop_reason = "refused";
            out.refusal = resp.refusal;
            co_return out;
        }
        // A model that keeps calling tools after they were withdrawn, or calls them by the
        // thousand, gives no usable answer: such a turn counts as a follow-up, so the exchange
        // ends (a server that ignores tool_choice "none" used to loop until the wall-clock limit,
        // each request larger than the last).
        const bool too_many_calls = resp.tool_calls.size() > settings.max_tool_calls_per_answer;
        if (too_many_calls || step.action == exchange_step::kind::withdraw_tools)
        {
            const std::string problem =
                too_many_calls
                    ? "the answer made " + std::to_string(resp.tool_calls.size()) + " tool calls; at most " +
                          std::to_string(settings.max_tool_calls_per_answer) + " are run per answer"
                    : "the answer called tools after they were withdrawn; answer with your proposal";
            count_unusable({problem});
            if (too_many_calls)
            {
                // Not taken into the conversation: every call would need an answer of its own.
                out.problems = {problem};
                if (!budget_ok)
                {
                    out.stop_reason = "budget";
                    co_return out;
                }
                ask_again(out.problems);
                continue;
            }
        }
        if (step.action == exchange_step::kind::run_tools ||
            step.action == exchange_step::kind::withdraw_tools)
        {
            message assistant;
            assistant.role = role::assistant;
            assistant.content = resp.text;
            assistant.tool_calls = resp.tool_calls;
            assistant.provider_items = resp.output_items;
            req.messages.push_back(std::move(assistant));
            json::array results;
            for (const auto& call : resp.tool_calls)
            {
                std::string output;
                if (step.action == exchange_step::kind::run_tools && tools)
                {
                    output = co_await tools->execute(call);
                    if (output.size() > settings.max_tool_output_bytes)
                        output = json::serialize(json::object{
                            {"error",
                             "the tool's answer was " + std::to_string(output.size()) + " bytes, more than " +
                                 std::to_string(settings.max_tool_output_bytes) + "; ask for less"}});
                }
                else
                    output = json::serialize(json::object{
                        {"error", "no more tool calls in this round; answer now with your proposal"}});
                ++out.tool_calls;
                results.push_back(json::object{{"id", call.id}, {"name", call.name}, {"output", output}});
                req.messages.push_back(message::tool_result(call.id, std::move(output)));
            }
            if (records && !resp.record.empty())
                records->attach_tool_results(resp.record, std::move(results));
            ++tool_rounds;
            if (step.action == exchange_step::kind::withdraw_tools)
                req.tools_disabled = true;
            if (!budget_ok)
            {
                out.stop_reason = "budget";
                co_return out;
            }
            continue;
        }

        std::vector<std::string> problems;
        if (resp.text.empty() && resp.status == "incomplete")
            problems.push_back(
                "the answer was cut off (" +
                (resp.incomplete_reason.empty() ? std::string("incomplete") : resp.incomplete_reason) +
                ") before it held anything usable; answer more concisely");
        else
            problems = validate(resp);
        for (auto& problem : problems)
            if (problem.size() > settings.max_problem_bytes)
            {
                // A problem quotes what the model wrote (an entry name of 10 MB went to stderr, the
                // journal and the next request whole).
                const std::size_t whole = problem.size();
                problem = std::string(utf8_prefix(problem, settings.max_problem_bytes)) + "... (" +
                          std::to_string(whole) + " bytes)";
            }
        if (problems.size() > settings.max_problems_shown)
        {
            // 200,000 bogus keys made 200,000 problem lines: in the next request, the error and
            // the journal, each time.
            const std::size_t more = problems.size() - settings.max_problems_shown;
            problems.resize(settings.max_problems_shown);
            problems.push_back("and " + std::to_string(more) + " more problems like these");
        }
        if (problems.empty())
        {
            out.accepted = true;
            message assistant;
            assistant.role = role::assistant;
            assistant.content = resp.text;
            assistant.provider_items = resp.output_items;
            out.conversation = req.messages;
            out.conversation.push_back(std::move(assistant));
            co_return out;
        }
        if (resp.status == "incomplete" && resp.incomplete_reason != "content_filter")
            problems.insert(problems.begin(),
                            "the answer was cut off at the output token limit; answer more concisely");
        out.problems = problems;
        if (!budget_ok)
        {
            out.stop_reason = "budget";
            co_return out;
        }
        count_unusable(problems);
        message assistant;
        assistant.role = role::assistant;
        if (resp.text.size() <= settings.max_echoed_answer_bytes)
        {
            assistant.content = resp.text;
            assistant.provider_items = resp.output_items;
        }
        else
        {
            // The refused answer goes back to the model so that it can fix it, but not a 20 MB one
            // in every follow-up: its start, and how much was left out.
            const std::string_view kept = utf8_prefix(resp.text, settings.max_echoed_answer_bytes);
            assistant.content = std::string(kept) + "\n[... " +
                                std::to_string(resp.text.size() - kept.size()) +
                                " more bytes of this answer left out]";
        }
        req.messages.push_back(std::move(assistant));
        ask_again(problems);
    }
}

}  // namespace warpsmith::llm
