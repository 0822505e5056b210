// warpsmith device-info: the GPU's properties through a warpsmith-worker (SPEC §3 "Replay").

#include "engine/cli/cli_app.hpp"
#include "engine/cli/commands.hpp"
#include "engine/executors/gpu_executor.hpp"
#include "harness/core/json_file.hpp"
#include "harness/json/lenient.hpp"

#include <boost/json.hpp>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

namespace warpsmith
{

namespace asio = boost::asio;
namespace json = boost::json;

namespace
{

struct device_info_args
{
    bool json = false;
    bool measure = false;
    int device = 0;
    worker_options worker;
};

std::string text(const json::value* v)
{
    if (!v || v->is_null())
        return "-";
    if (v->is_string())
        return std::string(v->get_string());
    if (v->is_array())
    {
        std::string out;
        for (const auto& e : v->get_array())
            out += (out.empty() ? "" : " x ") + text(&e);
        return out;
    }
    return json::serialize(*v);
}

std::string compute_capability(const json::value* v)
{
    if (!v || !v->is_array() || v->get_array().size() != 2)
        return text(v);
    return text(&v->get_array()[0]) + "." + text(&v->get_array()[1]);
}

std::string scaled(const json::value* v, double divisor, const char* unit)
{
    if (!v || !v->is_number())
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f %s", v->to_number<double>() / divisor, unit);
    return buf;
}

std::string render(const json::object& dev, const json::object& hello)
{
    // What the worker reports about its device (docs/worker-protocol.md, device_info), shown as far as
    // it goes: an absent or unexpected field is "-".
    auto at = [&](std::string_view k) { return lenient::value_at(dev, k); };
    const json::object* clocks = lenient::object_at(dev, "clocks");
    std::vector<std::pair<std::string, std::string>> rows{
        {"name", text(at("name"))},
        {"device index", text(at("index"))},
        {"architecture", text(at("arch"))},
        {"compute capability", compute_capability(at("compute_capability"))},
        {"SMs", text(at("sm_count"))},
        {"memory",
         scaled(at("total_memory_bytes"), 1 << 30, "GiB") + " (" +
             scaled(at("free_memory_bytes"), 1 << 30, "GiB") + " free)"},
        {"L2 cache", scaled(at("l2_bytes"), 1 << 20, "MiB")},
        {"shared memory per block",
         scaled(at("shared_memory_per_block_bytes"), 1024, "KiB") + " (opt-in " +
             scaled(at("shared_memory_per_block_optin_bytes"), 1024, "KiB") + ")"},
        {"shared memory per SM", scaled(at("shared_memory_per_sm_bytes"), 1024, "KiB")},
        {"registers per block / SM", text(at("registers_per_block")) + " / " + text(at("registers_per_sm"))},
        {"threads per block / SM",
         text(at("max_threads_per_block")) + " / " + text(at("max_threads_per_sm"))},
        {"warp size", text(at("warp_size"))},
        {"max grid", text(at("max_grid"))},
        {"max block", text(at("max_block"))},
        {"SM clock (max)", text(at("clock_mhz")) + " MHz"},
        {"memory clock", text(at("memory_clock_mhz")) + " MHz, " + text(at("memory_bus_bits")) + "-bit bus"},
        {"current clocks",
         clocks ? "SM " + text(lenient::value_at(clocks, "sm_mhz")) + " MHz, memory " +
                      text(lenient::value_at(clocks, "mem_mhz")) + " MHz"
                : "-"},
        {"driver", text(at("driver_version"))},
        {"NVRTC", text(lenient::value_at(hello, "nvrtc_version"))},
        {"worker", text(lenient::value_at(hello, "worker_version"))},
        {"UUID", text(at("uuid"))},
    };
    if (const json::object* mo = lenient::object_at(dev, "measured"))
    {
        rows.emplace_back("copy bandwidth (measured)",
                          scaled(lenient::value_at(mo, "copy_bandwidth_gbps"), 1, "GB/s"));
        rows.emplace_back("FP32 (measured)", scaled(lenient::value_at(mo, "fp32_tflops"), 1, "TFLOP/s"));
        // The cold copy curve (docs/worker-protocol.md): "2 MiB 1210, 4 MiB 1650, ... GB/s".
        if (const json::array* curve = lenient::array_at(mo, "cold_copy"); curve && !curve->empty())
        {
            std::string text;
            for (const auto& p : *curve)
            {
                const auto bytes = lenient::number_at(lenient::object_at(&p), "bytes");
                const auto gbps = lenient::number_at(lenient::object_at(&p), "gbps");
                if (!bytes || !gbps || !(*bytes > 0) || !(*bytes < 1e15))
                    continue;
                const double mib = *bytes / (1 << 20);
                char buf[64];
                if (mib >= 1024)
                    std::snprintf(buf, sizeof buf, "%.0f GiB %.0f", mib / 1024, *gbps);
                else
                    std::snprintf(buf, sizeof buf, "%.0f MiB %.0f", mib, *gbps);
                text += (text.empty() ? "" : ", ") + std::string(buf);
            }
            if (!text.empty())
                rows.emplace_back("cold copy (moved, GB/s)", text);
        }
    }
    std::string out;
    for (const auto& [k, v] : rows)
    {
        std::string key = k + ":";
        key.resize(std::max<std::size_t>(key.size(), 28), ' ');
        out += key + v + "\n";
    }
    return out;
}

asio::awaitable<int> device_info_main(asio::io_context& ioc, std::shared_ptr<device_info_args> args)
{
    gpu_executor_options opts;
    gpu_executor gpu(ioc, args->worker.launch(), args->device, opts);
    co_await gpu.start();
    json::object dev = co_await gpu.device_info(args->measure);
    co_await gpu.stop();
    if (args->json)
    {
        std::string s = pretty_json(dev);
        std::fwrite(s.data(), 1, s.size(), stdout);
    }
    else
    {
        std::string s = render(dev, gpu.hello());
        std::fwrite(s.data(), 1, s.size(), stdout);
    }
    co_return 0;
}

}  // namespace

void add_device_info_command(CLI::App& app)
{
    auto args = std::make_shared<device_info_args>();
    CLI::App* cmd =
        app.add_subcommand("device-info", "Print the GPU's properties (through a warpsmith-worker)");
    cmd->add_flag(
        "--json", args->json, "Print JSON (docs/worker-protocol.md, device_info) instead of a table");
    cmd->add_flag(
        "--measure", args->measure, "Also measure copy bandwidth and FP32 throughput (a second or so)");
    cmd->add_option("--device", args->device, "CUDA device index (default 0)")->check(CLI::NonNegativeNumber);
    args->worker.add_to(*cmd);
    cmd->footer(
        "Example:\n  warpsmith device-info --device 1 --measure --json\n"
        "Exit codes: 0 ok; 2 no GPU, no worker, or a bad flag.");
    auto run = [args]
    {
        auto body = [args](asio::io_context& ioc) { return device_info_main(ioc, args); };
        exit_with(run_async(body));
    };
    cmd->callback(run);
}

}  // namespace warpsmith
