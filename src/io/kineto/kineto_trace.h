// A profiler (Kineto / Chrome trace) recording in memory: host ops, CUDA
// runtime calls, device work and flow arrows, each kind in its own flat
// vector, names interned. Only what linking and timelines need is kept; the
// rest of an event's args stays in the file.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "support/interner.h"

namespace mimic {

constexpr uint32_t kNoEvent = UINT32_MAX;
constexpr int64_t kNoArg = -1;  // an integer arg the event does not carry

// A thread or device track as the trace names it by (pid, tid). Kineto writes
// numbers; a few tracks ("Spans", "PyTorch Profiler") use strings, kept in `label`.
struct ProfileThread {
    int64_t pid = 0;
    int64_t tid = 0;
    StrId label;  // non-numeric "pid/tid" text, else empty
    StrId name;   // from a "thread_name" metadata event, if any
};

enum class HostCategory : uint8_t { CpuOp, UserAnnotation, PythonFunction };

// A host operator or label (cat cpu_op, user_annotation, python_function).
struct HostEvent {
    StrId name;
    HostCategory category = HostCategory::CpuOp;
    uint32_t thread = 0;  // index into ProfileTrace::threads
    uint32_t input_dims_hash = 0;  // a fingerprint of "Input Dims"; 0 when the event has none
    double ts_us = 0;
    double dur_us = 0;
    int64_t external_id = kNoArg;
    int64_t record_function_id = kNoArg;
    int64_t sequence_nr = kNoArg;
    int64_t fwd_thread_id = kNoArg;
    uint32_t parent = kNoEvent;  // innermost enclosing host event on the same thread (set by finalize)
    double end_us() const { return ts_us + dur_us; }
};

// A CUDA runtime or driver call (cudaLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync...).
struct RuntimeEvent {
    StrId name;
    uint32_t thread = 0;
    double ts_us = 0;
    double dur_us = 0;
    int64_t correlation = kNoArg;
    int64_t external_id = kNoArg;
};

enum class DeviceKind : uint8_t { Kernel, Memcpy, Memset };

// Work that ran on a device: a kernel, memcpy or memset.
struct DeviceWork {
    StrId name;
    DeviceKind kind = DeviceKind::Kernel;
    uint32_t thread = 0;  // the track it was drawn on (pid = device, tid = stream in Kineto)
    double ts_us = 0;
    double dur_us = 0;
    int64_t correlation = kNoArg;
    int64_t external_id = kNoArg;
    int64_t device = kNoArg;
    int64_t stream = kNoArg;
    StrId process_group;  // "Process Group Name" on NCCL kernels
};

// One end of a flow arrow (ph "s" start or "f" finish); cat ac2g ties a
// launch to its kernel with id == correlation.
struct FlowEvent {
    int64_t id = 0;
    StrId category;
    uint32_t thread = 0;
    double ts_us = 0;
    bool is_start = true;
};

// What the reader passed over without keeping, for reports.
struct ProfileReadStats {
    uint64_t events = 0;            // elements of traceEvents
    uint64_t metadata_events = 0;   // ph "M"
    uint64_t instant_events = 0;    // ph "i"/"I"
    uint64_t counter_events = 0;    // ph "C"
    uint64_t other_events = 0;      // complete events of other categories, other phases
    uint64_t negative_durations = 0;  // events skipped for a negative "dur"
    uint64_t whole_microsecond_events = 0;  // the legacy export's truncated times, given half a microsecond back
    // How the profiler was set up: host ops with input shapes, "[memory]" records.
    uint64_t events_with_shapes = 0;
    uint64_t memory_events = 0;
    uint64_t input_bytes = 0;       // uncompressed JSON
};

// Kineto's "distributedInfo" (PyTorch writes it for a distributed job).
struct ProfileDistributedInfo {
    int64_t rank = -1;
    int64_t world_size = -1;
    std::string backend;  // "nccl", "gloo"...
};

class ProfileTrace {
public:
    std::string source_path;
    ProfileDistributedInfo distributed;
    StringInterner strings;
    std::vector<ProfileThread> threads;
    std::vector<HostEvent> host;
    std::vector<RuntimeEvent> runtime;
    std::vector<DeviceWork> device;
    std::vector<FlowEvent> flows;
    std::vector<std::string> warnings;
    ProfileReadStats stats;

    // The index of the (pid, tid) track, adding it when new.
    uint32_t thread_index(int64_t pid, int64_t tid);
    uint32_t labelled_thread_index(std::string_view label);

    // Sorts host events per thread into start order (outer before inner on
    // equal start) and sets each one's enclosing parent. Readers call it last.
    void finalize();

    // Host events of one thread in start order; valid after finalize().
    const std::vector<uint32_t>& host_order(uint32_t thread) const;
    // Threads that carry host events, in first-seen order; valid after finalize().
    const std::vector<uint32_t>& host_threads() const { return host_threads_; }

    std::string_view str(StrId id) const { return strings.view(id); }
    void warn(std::string message) { warnings.push_back(std::move(message)); }

private:
    struct TrackKeyHash {
        size_t operator()(const std::pair<int64_t, int64_t>& k) const noexcept {
            // Unsigned: a large pid times the multiplier must wrap, not overflow (undefined).
            return std::hash<uint64_t>()(static_cast<uint64_t>(k.first) * 1000003u ^ static_cast<uint64_t>(k.second));
        }
    };
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, TrackKeyHash> thread_of_key_;
    std::unordered_map<uint32_t, uint32_t> thread_of_label_;  // by StrId of the label
    std::vector<std::vector<uint32_t>> host_order_;  // per thread index
    std::vector<uint32_t> host_threads_;
};

const char* to_string(HostCategory c);
const char* to_string(DeviceKind k);

}  // namespace mimic
