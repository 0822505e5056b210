#include "harness/worker/case_store.hpp"

#include "harness/compile/compile_options.hpp"
#include "harness/core/error.hpp"
#include "harness/core/log.hpp"
#include "harness/core/utf8_text.hpp"
#include "harness/worker/watchdog.hpp"
#include "harness/workload/candidate.hpp"
#include "harness/workload/input_generator.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <random>

namespace warpsmith::worker
{

namespace json = boost::json;

namespace
{

std::string set_label(input_set set)
{
    return set == input_set::stated ? "stated inputs" : "hidden inputs";
}

std::string excerpt(const std::string& log, std::size_t max_chars = 1500)
{
    if (log.size() <= max_chars)
        return log;
    return std::string(utf8_prefix(log, max_chars)) + "\n[... log truncated]";
}

}  // namespace

case_store::case_store(gpu_device& device,
                       const helper_kernels& helpers,
                       const nvrtc_compiler& compiler,
                       workload w,
                       std::uint64_t hidden_seed,
                       std::chrono::milliseconds launch_timeout)
    : device_(device),
      helpers_(helpers),
      workload_(std::make_unique<workload>(std::move(w))),
      launch_timeout_(launch_timeout)
{
    // Random keys, never derived from anything a candidate sees (seeds, sizes, addresses).
    std::random_device rd;
    for (reference_mask& m : masks_)
        while (!m.enabled())
        {
            m.k1 = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
            m.k2 = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
        }

    const workload& wl = *workload_;
    std::size_t buffer_params = 0;
    for (const param& p : wl.sig.params)
        buffer_params += p.kind == param_kind::buffer;
    checks_ = std::make_unique<check_area>(buffer_params, check_slots);
    hidden_seed_ = hidden_seed;
    device_bytes_ += checks_->device_bytes();

    // The reference is compiled like any candidate (same NVRTC, same cache, the device's own arch).
    const candidate ref_candidate = candidate::from_kernel(wl.reference);
    compile_request request;
    request.source = ref_candidate.source;
    request.entry = ref_candidate.entry;
    request.options = define_options(ref_candidate.defines);
    request.options.insert(request.options.end(), ref_candidate.options.begin(), ref_candidate.options.end());
    request.arch = device_.arch();
    request.name = wl.reference.path.empty() ? "reference.cu" : wl.reference.path.filename().string();
    const compile_output compiled = compiler.compile(request);
    if (!compiled.compiled)
        throw reference_error("the reference does not compile: " + compiled.error + "\n" +
                              excerpt(compiled.log));
    std::string why;
    std::optional<loaded_kernel> ref = load_kernel(compiled.cubin, ref_candidate.entry, why);
    if (!ref)
        throw reference_error("the reference cannot be loaded: " + why);
    if (const std::string refused = refuse_local_frame(*ref); !refused.empty())
        throw reference_error("the reference cannot be run: " + refused);
    if (const std::string mismatch = parameter_mismatch(*ref, wl.sig); !mismatch.empty())
        throw reference_error("the reference's parameters do not match the signature: " + mismatch);

    cases_.reserve(wl.cases.size());
    for (const workload_case& wc : wl.cases)
    {
        case_data& c = cases_.emplace_back();
        c.wc = &wc;
        allocate_case(c, hidden_seed);
        run_reference(c, *ref, ref_candidate);
    }
    retire_all(device_.stream());
    // The first fill: what the check before it counted was the allocations' previous contents.
    (void)take_unchecked_guard_damage(device_.stream());
    build_seal();
}

void case_store::build_seal()
{
    if (exact_allocations())
        return;  // Under compute-sanitizer, allocations are exact and memcheck sees every stray write.
    std::vector<seal_region> regions;
    const auto add = [&](CUdeviceptr from, CUdeviceptr to, std::uint32_t stride, std::string label)
    {
        from = (from + 7) / 8 * 8;
        to = to / 8 * 8;
        if (to <= from)
            return;
        regions.push_back(seal_region{from, (to - from) / 8, stride, 0});
        seal_labels_.push_back(std::move(label));
    };
    constexpr std::uint32_t sampled = launch_hygiene::digest_stride_words;
    for (case_data& c : cases_)
    {
        const std::string of_case = " of case " + c.name();
        for (const buffer_slot& b : c.buffers)
        {
            const std::string name = "'" + b.p->name + "'";
            add(b.working.base(),
                b.working.payload(),
                1,
                "the guard before buffer " + name + of_case + " (at rest)");
            add(b.working.payload(),
                b.working.tail_guard(),
                sampled,
                "buffer " + name + of_case + " while another case ran (at rest)");
            add(b.working.tail_guard(),
                b.working.base() + b.working.total_bytes(),
                1,
                "the guard or the unused memory after buffer " + name + of_case);
            for (int set = 0; set < 2; ++set)
            {
                const char* which = set == 0 ? " (stated inputs)" : " (hidden inputs)";
                const auto& pristine = b.pristine[static_cast<std::size_t>(set)];
                if (pristine.size() > 0)
                    add(pristine.ptr(),
                        pristine.ptr() + pristine.size(),
                        sampled,
                        "the harness's pristine copy of input " + name + of_case + which);
                const auto& reference = b.reference[static_cast<std::size_t>(set)];
                if (reference.size() > 0)
                    add(reference.ptr(),
                        reference.ptr() + reference.size(),
                        sampled,
                        "the harness's reference output " + name + of_case + which);
            }
            if (b.snapshot.size() > 0 && b.is_output())
                add(b.snapshot.ptr(),
                    b.snapshot.ptr() + b.bytes,
                    sampled,
                    "the harness's snapshot of " + name + of_case + " (at rest)");
            if (b.snapshot.size() > 0)
                add(b.snapshot.ptr() + b.bytes,
                    b.snapshot.ptr() + b.snapshot.size(),
                    1,
                    "the unused memory after the harness's snapshot of " + name + of_case);
        }
        add(c.guard_ranges.ptr(),
            c.guard_ranges.ptr() + c.guard_ranges.size(),
            1,
            "the harness's guard table" + of_case);
        // The counters change during an evaluation; the rest of their 2 MiB page must not (a kernel
        // that found it kept a whole output's memo there between launches: sixth review).
        add(c.unchecked_guard_damage.ptr() +
                std::max<std::size_t>(1, static_cast<std::size_t>(c.guard_range_count)) *
                    sizeof(std::uint64_t),
            c.unchecked_guard_damage.ptr() + c.unchecked_guard_damage.size(),
            1,
            "the unused memory after the harness's guard-damage counters" + of_case);
    }
    if (regions.empty())
        return;
    seal_table_ = cuda::device_buffer(regions.size() * sizeof(seal_region));
    seal_table_.upload(regions.data(), regions.size() * sizeof(seal_region));
    seal_digests_ = cuda::device_buffer(2 * regions.size() * sizeof(std::uint64_t));
    seal_host_ = cuda::pinned_buffer(2 * regions.size() * sizeof(std::uint64_t));
    device_bytes_ += seal_table_.size() + seal_digests_.size();
}

void case_store::seal_digest(const launch_hygiene& hygiene, CUstream s, std::uint32_t phase, int which) const
{
    const int n = seal_regions();
    if (n == 0)
        return;
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::uint64_t);
    const CUdeviceptr out = seal_digests_.ptr() + static_cast<std::size_t>(which) * bytes;
    WARPSMITH_CU(cuMemsetD8Async, out, 0, bytes, s);
    hygiene.digest_regions(s, seal_table_.ptr(), n, phase, out);
    WARPSMITH_CU(cuMemcpyDtoHAsync,
                 seal_host_.as<unsigned char>() + static_cast<std::size_t>(which) * bytes,
                 out,
                 bytes,
                 s);
}

std::string case_store::seal_broken() const
{
    const std::size_t n = seal_labels_.size();
    const std::uint64_t* d = seal_host_.as<std::uint64_t>();
    for (std::size_t i = 0; i < n; ++i)
        if (d[i] != d[n + i])
            return seal_labels_[i];
    return {};
}

void case_store::check_and_refill_guards(case_data& c, CUstream s) const
{
    helpers_.check_guards(s,
                          c.guard_ranges.ptr(),
                          c.guard_range_count,
                          c.largest_guard_bytes,
                          guard_fill,
                          c.unchecked_guard_damage.ptr(),
                          guard_refill::yes);
}

void case_store::retire(case_data& c, CUstream s) const
{
    check_and_refill_guards(c, s);
    for (const buffer_slot& b : c.buffers)
        b.working.poison(s, b.p->type);
}

void case_store::refresh_guards(case_data& c, CUstream s) const
{
    check_and_refill_guards(c, s);
}

std::string case_store::take_unchecked_guard_damage(CUstream s)
{
    std::size_t total = 0;
    for (const case_data& c : cases_)
        total += 2 * c.buffers.size();
    if (total == 0)
        return {};
    if (damage_host_.size() < total * sizeof(std::uint64_t))
        damage_host_ = cuda::pinned_buffer(total * sizeof(std::uint64_t));
    auto* counts = damage_host_.as<std::uint64_t>();
    std::size_t at = 0;
    for (const case_data& c : cases_)
    {
        const std::size_t n = 2 * c.buffers.size();
        if (n > 0)
            WARPSMITH_CU(
                cuMemcpyDtoHAsync, counts + at, c.unchecked_guard_damage.ptr(), n * sizeof(std::uint64_t), s);
        at += n;
    }
    wait_for_stream(s, launch_timeout_, "the guard counts");
    std::string found;
    at = 0;
    for (case_data& c : cases_)
    {
        const std::size_t n = 2 * c.buffers.size();
        bool any = false;
        for (std::size_t i = 0; i < n; ++i)
        {
            const std::uint64_t v = counts[at + i];
            if (v == 0)
                continue;
            any = true;
            if (found.empty())
                found = std::string(i % 2 == 0 ? "the guard before" : "the guard after") + " buffer '" +
                        c.buffers[i / 2].p->name + "' of case " + c.name() + ": " + std::to_string(v) +
                        " bytes";
        }
        if (any)
            WARPSMITH_CU(cuMemsetD8Async, c.unchecked_guard_damage.ptr(), 0, n * sizeof(std::uint64_t), s);
        at += n;
    }
    return found;
}

void case_store::poison_snapshots(case_data& c, CUstream s) const
{
    for (const buffer_slot& b : c.buffers)
        if (b.is_output() && b.bytes > 0)
            WARPSMITH_CU(cuMemsetD8Async, b.snapshot.ptr(), static_cast<unsigned char>(0xA5), b.bytes, s);
}

void case_store::retire_all(CUstream s)
{
    for (case_data& c : cases_)
    {
        retire(c, s);
        poison_snapshots(c, s);
    }
}

void case_store::allocate_case(case_data& c, std::uint64_t hidden_seed)
{
    const workload& wl = *workload_;
    const workload_case& wc = *c.wc;
    const std::array<std::uint64_t, 2> seeds{wc.seed, splitmix64_mix(hidden_seed ^ fnv1a64(wc.name))};

    std::vector<CUdeviceptr> pointers;
    std::vector<guard_range> ranges;
    for (std::size_t i = 0; i < wl.sig.params.size(); ++i)
    {
        const param& p = wl.sig.params[i];
        if (p.kind != param_kind::buffer)
            continue;
        buffer_slot& b = c.buffers.emplace_back();
        b.param_index = i;
        b.p = &p;
        b.count = wl.buffer_count(p, wc);
        b.bytes = static_cast<std::size_t>(wl.buffer_bytes(p, wc));
        b.working = guarded_buffer(b.bytes);
        device_bytes_ += b.working.total_bytes();
        if (b.is_output())
        {
            for (auto& r : b.reference)
                r = cuda::device_buffer(whole_pages(b.bytes));
            b.snapshot = cuda::device_buffer(whole_pages(b.bytes));
            device_bytes_ += 3 * b.bytes;
        }
        if (p.dir == buffer_dir::inout)
            c.has_inout = true;
        pointers.push_back(b.working.payload());
        const auto index = static_cast<std::uint32_t>(c.buffers.size() - 1);
        ranges.push_back({b.working.base(), b.working.head_guard_bytes(), 2 * index, 0});
        ranges.push_back({b.working.tail_guard(), b.working.tail_guard_bytes(), 2 * index + 1, 0});
        c.largest_guard_bytes = std::max<std::uint64_t>(
            {c.largest_guard_bytes, b.working.head_guard_bytes(), b.working.tail_guard_bytes()});
    }

    // Inputs: generated on the host once per input set, uploaded once, and from then on only
    // copied device-to-device into the working buffers before each run.
    for (int set = 0; set < 2; ++set)
    {
        std::map<std::string, std::string> inputs =
            generate_case_inputs(wl, wc, seeds[static_cast<std::size_t>(set)]);
        for (buffer_slot& b : c.buffers)
        {
            if (!b.is_input())
                continue;
            auto it = inputs.find(b.p->name);
            if (it == inputs.end() || it->second.size() != b.bytes)
                throw std::logic_error(
                    "input generator gave " +
                    std::string(it == inputs.end() ? "no" : std::to_string(it->second.size())) +
                    " bytes for buffer '" + b.p->name + "' of case '" + wc.name + "', expected " +
                    std::to_string(b.bytes));
            auto& pristine = b.pristine[static_cast<std::size_t>(set)];
            pristine = cuda::device_buffer(whole_pages(b.bytes));
            pristine.upload(it->second.data(), b.bytes);
            device_bytes_ += b.bytes;
            std::string().swap(it->second);  // Free host memory early; performance cases are large.
        }
    }

    c.guard_range_count = static_cast<int>(ranges.size());
    c.guard_ranges = cuda::device_buffer(whole_pages(ranges.size() * sizeof(guard_range)));
    c.guard_ranges.upload(ranges.data(), ranges.size() * sizeof(guard_range));
    device_bytes_ += c.guard_ranges.size();
    c.unchecked_guard_damage = cuda::device_buffer(whole_pages(std::max<std::size_t>(1, ranges.size()) * 8));
    const std::vector<std::uint64_t> zeros(std::max<std::size_t>(1, ranges.size()), 0);
    c.unchecked_guard_damage.upload(zeros.data(), zeros.size() * sizeof(std::uint64_t));
    device_bytes_ += c.unchecked_guard_damage.size();
    c.args = std::make_unique<kernel_args>(wl.sig, wc, pointers);
}

void case_store::prepare(case_data& c, input_set set, CUstream s) const
{
    check_and_refill_guards(c, s);
    for (const buffer_slot& b : c.buffers)
    {
        if (b.is_input())
            b.working.copy_from(s, b.pristine[static_cast<std::size_t>(set)].ptr());
        else
            b.working.poison(s, b.p->type);
    }
}

void case_store::refresh_outputs(case_data& c, CUstream s) const
{
    for (const buffer_slot& b : c.buffers)
    {
        if (b.is_input() && b.is_output())
            b.working.copy_from(s, b.pristine[0].ptr());
        else if (b.is_output())
            b.working.poison(s, b.p->type);
    }
}

void case_store::run_reference(case_data& c, loaded_kernel& ref, const candidate& ref_candidate)
{
    const CUstream s = device_.stream();
    const std::string where = "case '" + c.name() + "'";
    launch_dims dims;
    try
    {
        dims = ref_candidate.plan_for(c.name()).evaluate(ref_candidate.launch_variables(*c.wc));
    }
    catch (const std::exception& e)
    {
        throw reference_error("the reference's launch plan fails for " + where + ": " + e.what());
    }
    if (std::string reason = prepare_launch(ref, dims, device_.limits()); !reason.empty())
        throw reference_error("the reference cannot be launched for " + where + ": " + reason);

    for (input_set set : {input_set::stated, input_set::hidden})
    {
        prepare(c, set, s);
        const std::string what = "reference kernel, " + where + " (" + set_label(set) + ")";
        try
        {
            CUresult rc = launch_kernel(ref, dims, c.args->data(), s);
            if (rc != CUDA_SUCCESS)
                throw reference_error(what + ": launch failed with " + cuda::error_name(rc) + " (grid " +
                                      format_dims(dims.grid) + ", block " + format_dims(dims.block) + ", " +
                                      std::to_string(dims.shared_bytes) + " dynamic shared bytes)");
            wait_for_stream(s, launch_timeout_, what);
        }
        catch (const cuda::cuda_error& e)
        {
            if (e.is_sticky())
                throw;
            throw reference_error(what + ": " + e.name());
        }
        for (buffer_slot& b : c.buffers)
            if (b.is_output())
                copy_device(
                    s, b.reference[static_cast<std::size_t>(set)].ptr(), b.working.payload(), b.bytes);
    }

    // Reference statistics, computed on the GPU: non-zero and non-finite counts of the stated
    // outputs, and whether any output differs between the stated and hidden inputs.
    check_area& ck = *checks_;
    ck.clear(0, s);
    for (std::size_t i = 0; i < c.buffers.size(); ++i)
    {
        const buffer_slot& b = c.buffers[i];
        if (!b.is_output())
            continue;
        helpers_.reference_stats(
            s, b.p->type, b.reference[0].ptr(), static_cast<std::uint64_t>(b.count), ck.compare(0, i));
        helpers_.diff_bytes(s, b.reference[0].ptr(), b.reference[1].ptr(), b.bytes, ck.input_diff(0, i));
    }
    ck.fetch(0, s);
    // From here on the references are only read through their masks (the statistics above were
    // taken on the plain values, queued before). The working buffers held the last reference run's
    // output in plain form: poisoned, so no candidate of any case finds a plain reference output
    // anywhere on the device.
    for (const buffer_slot& b : c.buffers)
    {
        if (!b.is_output())
            continue;
        for (std::size_t set = 0; set < b.reference.size(); ++set)
            helpers_.apply_mask(
                s, b.p->type, b.reference[set].ptr(), static_cast<std::uint64_t>(b.count), masks_[set]);
        b.working.poison(s, b.p->type);
    }
    wait_for_stream(s, launch_timeout_, "reference statistics, " + where);

    json::object elements, all_zero, nonfinite;
    bool depends = false;
    for (std::size_t i = 0; i < c.buffers.size(); ++i)
    {
        const buffer_slot& b = c.buffers[i];
        elements[b.p->name] = b.count;
        if (!b.is_output())
            continue;
        const compare_counters stats = ck.host_compare(0, i);
        all_zero[b.p->name] = stats.unwritten == 0;  // word 0 holds the non-zero count here
        nonfinite[b.p->name] = stats.nonfinite;
        depends = depends || ck.host_input_diff(0, i) > 0;
        if (stats.nonfinite > 0)
            log_warn("reference output " + b.p->name + " of " + where + " has " +
                     std::to_string(stats.nonfinite) + " non-finite elements");
    }
    c.summary = json::object{{"name", c.name()},
                             {"role", std::string(to_string(c.wc->role))},
                             {"elements", std::move(elements)},
                             {"reference",
                              json::object{{"all_zero", std::move(all_zero)},
                                           {"nonfinite", std::move(nonfinite)},
                                           {"depends_on_inputs", depends}}}};
}

case_data* case_store::find(std::string_view name)
{
    for (case_data& c : cases_)
        if (c.name() == name)
            return &c;
    return nullptr;
}

json::object case_store::response() const
{
    json::array cases;
    for (const case_data& c : cases_)
        cases.push_back(c.summary);
    return json::object{{"cases", std::move(cases)}, {"device_bytes", device_bytes_}};
}

}  // namespace warpsmith::worker
