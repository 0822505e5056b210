// fake_openai_server: the fake OpenAI-compatible model server (fake_openai_server.hpp) as a
// program, for end-to-end runs without a real model:
//
//   fake_openai_server [--port P] [--tls] [--latency-ms N] [--latency-jitter-ms N] [--answer-by-round]
//                      [--no-tools] [--no-json-schema] [--api-key KEY] [--sgemm-dir DIR] [--lenient]
//                      [--no-reasoning-model NAME]...
//   warpsmith optimize --description "Single-precision GEMM with rectangular matrices." \
//       --provider openai-chat --model fake --base-url http://127.0.0.1:P/v1 --max-iterations 3 --branches 4
//
// Requests are checked the way the real API checks them (openai_request_rules.hpp) unless
// --lenient; --no-reasoning-model NAME makes NAME refuse reasoning parameters (like gpt-4.1).
// It prints "fake_openai_server listening on URL" and serves until SIGINT or SIGTERM, then prints
// its counters (requests per task, peak concurrent requests). The fake HTTP server listens on an
// ephemeral port; --port P relays 127.0.0.1:P to it byte for byte (TLS passes through unchanged).
// With --tls the certificate (for 127.0.0.1 and localhost) is generated at start; point
// SSL_CERT_FILE at the printed CA file, or use --insecure-local.

#include "tests/agents/support/fake_openai_server.hpp"

#include <boost/asio.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace warpsmith::test;

namespace
{

/// Copies bytes from one socket to the other until either side closes.
void pump(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to)
{
    auto buf = std::make_shared<std::array<char, 16384>>();
    from->async_read_some(asio::buffer(*buf),
                          [from, to, buf](boost::system::error_code ec, std::size_t n)
                          {
                              if (ec)
                              {
                                  boost::system::error_code ignored;
                                  to->shutdown(tcp::socket::shutdown_send, ignored);
                                  return;
                              }
                              asio::async_write(*to,
                                                asio::buffer(buf->data(), n),
                                                [from, to, buf](boost::system::error_code wec, std::size_t)
                                                {
                                                    if (wec)
                                                    {
                                                        boost::system::error_code ignored;
                                                        from->close(ignored);
                                                        return;
                                                    }
                                                    pump(from, to);
                                                });
                          });
}

void accept_loop(tcp::acceptor& acceptor, std::uint16_t inner_port)
{
    acceptor.async_accept(
        [&acceptor, inner_port](boost::system::error_code ec, tcp::socket s)
        {
            if (ec)
                return;
            auto client = std::make_shared<tcp::socket>(std::move(s));
            auto upstream = std::make_shared<tcp::socket>(acceptor.get_executor());
            upstream->async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), inner_port),
                                    [client, upstream](boost::system::error_code cec)
                                    {
                                        if (cec)
                                            return;
                                        pump(client, upstream);
                                        pump(upstream, client);
                                    });
            accept_loop(acceptor, inner_port);
        });
}

int usage(const char* why)
{
    std::fprintf(
        stderr,
        "fake_openai_server: %s\nusage: fake_openai_server [--port P] [--tls] [--latency-ms N] "
        "[--latency-jitter-ms N] [--answer-by-round] [--no-tools] [--no-json-schema] [--api-key KEY] "
        "[--sgemm-dir DIR] [--lenient] [--no-reasoning-model NAME]...\n",
        why);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    fake_openai_options opts;
    int port = 0;
    bool tls = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        auto value = [&]() -> std::string
        {
            if (i + 1 >= argc)
                throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        try
        {
            if (a == "--port")
                port = std::stoi(value());
            else if (a == "--tls")
                tls = true;
            else if (a == "--latency-ms")
                opts.latency = std::chrono::milliseconds(std::stoi(value()));
            else if (a == "--latency-jitter-ms")
                opts.latency_jitter = std::chrono::milliseconds(std::stoi(value()));
            else if (a == "--answer-by-round")
                opts.answer_by_round = true;
            else if (a == "--no-tools")
                opts.tool_calls = false;
            else if (a == "--no-json-schema")
                opts.chat_json_schema = false;
            else if (a == "--api-key")
                opts.api_key = value();
            else if (a == "--sgemm-dir")
                opts.sgemm_dir = value();
            else if (a == "--lenient")
                opts.strict = false;
            else if (a == "--no-reasoning-model")
                opts.rules.models_without_reasoning.insert(value());
            else if (a == "--help" || a == "-h")
                return usage("a fake OpenAI-compatible server for warpsmith tests"), 0;
            else
                return usage(("unknown option " + a).c_str());
        }
        catch (const std::exception& e)
        {
            return usage(e.what());
        }
    }
    if (port < 0 || port > 65535)
        return usage("--port must be 0..65535");

    fake_openai_server server(opts, tls ? transport::https : transport::http);
    asio::io_context ioc;
    std::unique_ptr<tcp::acceptor> acceptor;
    std::string url = server.base_url();
    if (port != 0)
    {
        try
        {
            acceptor = std::make_unique<tcp::acceptor>(
                ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<std::uint16_t>(port)));
        }
        catch (const std::exception& e)
        {
            std::fprintf(stderr, "fake_openai_server: cannot listen on 127.0.0.1:%d: %s\n", port, e.what());
            return 1;
        }
        accept_loop(*acceptor, server.port());
        url = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port) + "/v1";
    }
    std::printf("fake_openai_server listening on %s\n", url.c_str());
    if (tls)
        std::printf("fake_openai_server CA file: %s\n", server.ca_file().c_str());
    std::fflush(stdout);

    asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code, int) { ioc.stop(); });
    auto guard = asio::make_work_guard(ioc);
    ioc.run();

    std::printf("fake_openai_server: %zu requests, peak %zu concurrent;",
                server.request_count(),
                server.max_concurrent_requests());
    for (const auto& [task, n] : server.task_counts())
        std::printf(" %s=%d", task.c_str(), n);
    std::printf("\n");
    server.stop();
    return 0;
}
