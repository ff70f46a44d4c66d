#include "compose/fleet_scan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <thread>

#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/error.h"

namespace mimic::fleet {

FleetItem scan_one(const FleetInput& input, size_t index, const SignatureOptions& options) {
    FleetItem item;
    item.index = index;
    item.path = input.path;
    if (!input.problem.empty()) {
        item.reason = input.path + ": " + input.problem;
        return item;
    }
    try {
        // A profiler trace on its own has no operators' inputs to sign; in a
        // recording directory it is read beside its ET.
        if (detect_file_kind(input.trace.trace_path) == FileKind::KinetoJson)
            fail({input.trace.trace_path, -1, -1, ""},
                 "a profiler (Kineto) trace, not an execution trace (put it beside its ET in a recording directory as profile.json)");
        Trace trace = load_trace(input.trace.trace_path);
        if (!input.trace.meta_path.empty()) apply_recording_meta(trace, input.trace.meta_path);
        if (!input.trace.profile_path.empty()) {
            KinetoReadOptions ko;
            ko.progress = false;
            link_profile(trace, read_kineto_trace(input.trace.profile_path, ko));
        }
        item.signature = compute_signature(trace, options);
        item.ok = true;
    } catch (const Error& e) {
        item.reason = e.what();
    } catch (const std::bad_alloc&) {
        item.reason = input.path + ": out of memory while reading it";
    } catch (const std::exception& e) {
        item.reason = input.path + ": " + e.what();
    }
    // Every reason names its file, whoever wrote the message.
    if (!item.ok && item.reason.find(input.trace.trace_path) == std::string::npos && item.reason.find(input.path) == std::string::npos)
        item.reason = input.path + ": " + item.reason;
    return item;
}

std::vector<FleetItem> scan_fleet(const std::vector<FleetInput>& inputs, const ScanOptions& options) {
    if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards)
        fail({"--shard", -1, -1, ""}, "expected I/N with 0 <= I < N, got " + std::to_string(options.shard) + "/" + std::to_string(options.shards));
    std::vector<size_t> mine;
    for (size_t i = 0; i < inputs.size(); ++i)
        if (i % static_cast<size_t>(options.shards) == static_cast<size_t>(options.shard)) mine.push_back(i);

    std::vector<FleetItem> items(mine.size());
    std::atomic<size_t> next{0};
    std::mutex report;
    size_t done = 0, failed = 0;
    // Files are independent and each thread holds one trace at a time: a
    // pool that takes the next file as it frees keeps every core busy however
    // the sizes vary.
    auto worker = [&] {
        for (size_t k = next++; k < mine.size(); k = next++) {
            items[k] = scan_one(inputs[mine[k]], mine[k], options.signature);
            std::lock_guard<std::mutex> lock(report);
            ++done;
            if (!items[k].ok) ++failed;
            if (options.progress) options.progress(done, mine.size(), failed);
        }
    };
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, mine.size())));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    return items;
}

}  // namespace mimic::fleet
