// The page-fault probe the recorder loads into the Python process it records
// (libmimic_fault_probe.so, through ctypes). In the profiled call of the step
// it counts the minor page faults each top-level operator takes.
//
// Why: on CPU an operator's time depends on whether its outputs land on
// pages the process already has or on fresh ones, each first touch of which
// is a page fault (~1.7 us on the VMs we measured). Which allocations get
// fresh pages follows glibc's heap history in the original process, which a
// replay cannot have. The replay reads these counts and gives each operator
// as many fresh pages as the original's faults (replay/fresh_page_allocator).
//
// Top-level: an operator call through the dispatcher with no other operator
// call open on its thread, which is what the replay replays. Faults are the
// process's (RUSAGE_SELF), because intra-op worker threads first-touch parts
// of an output too.
//
// It also notes the layout (sizes, strides, storage offset) of each tensor a
// top-level operator takes. A torch 1.13 ET records no strides, and a replay
// that builds such a tensor contiguous feeds the operator another layout than
// the original's: `W.t()` saved for a backward `mm` becomes a contiguous
// [in, out] tensor, and BLAS then runs NT instead of NN, up to 1.8x slower
// on this machine's OpenBLAS.
//
// In its timing mode it takes only the start and end time of each top-level
// operator, in an otherwise untraced call of the step: the host time between
// operators (Python, autograd) without the instrumentation that inflates the
// profiled call's gaps. The callback costs ~0.16 us per nested event, inside
// the ops (the recorder measures it). It also reads the thread's CPU clock when a
// top-level op starts and ends: a gap's CPU time is the host work in it, the
// rest of its wall time the thread waited (a collective the DDP reducer
// waits for inside backward(), the GIL) or was descheduled. Those reads are
// syscalls; their wall time is noted so that the gaps can leave it out. With
// them it counts each op's page faults, as in the profiled call, for the
// untraced iterations' own distribution of them.
#include "record/fault_probe.h"

#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Record {
    uint64_t thread;
    std::string name;
    int64_t faults;
    std::string layouts;
    int64_t start_ns = 0, end_ns = 0;  // timing mode (steady clock, as Python's perf_counter_ns)
    // Timing mode: the thread's CPU clock read just before start_ns and just
    // after end_ns, and the wall time those two reads took.
    int64_t cpu_start_ns = 0, cpu_end_ns = 0, clock_read_ns = 0;
};

struct ProbeState {
    std::mutex mutex;
    std::vector<Record> records;
    at::CallbackHandle handle = 0;
    // Timing mode: times, CPU clock and faults, no layouts. Set under the
    // mutex before the callback is added, read by the callbacks on any thread.
    std::atomic<bool> timing{false};
};

uint64_t this_thread_key() { return std::hash<std::thread::id>()(std::this_thread::get_id()); }

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

ProbeState& state() {
    static ProbeState s;
    return s;
}

int64_t minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<int64_t>(u.ru_minflt);
}

// Per thread: the depth of open operator calls, the top-level operator's
// name, and the fault count when the last top-level operator ended.
struct ThreadState {
    int depth = 0;
    bool counting = false;
    int64_t last = 0;
    std::string name;
    std::string layouts;
    int64_t start_ns = 0, cpu_start_ns = 0, start_read_ns = 0;
};
thread_local ThreadState t_state;

// The process's faults since this thread's previous top-level operator
// ended (the host code before the op included); 0 for a thread's first.
int64_t faults_since_last_op(ThreadState& t) {
    const int64_t now = minor_faults();
    if (!t.counting) t.last = now;  // a thread's first operator: no start to count from
    t.counting = true;
    const int64_t faults = now - t.last;
    t.last = now;
    return faults;
}

// The calling thread counts from here (its first op is not a thread's first).
void count_faults_from_here() {
    t_state.counting = true;
    t_state.last = minor_faults();
}

// Labels such as "autograd::engine::evaluate_function: AddmmBackward0" are
// FUNCTION-scope too, but name no operator: the ops inside them are the
// top-level ones, as in the replay's selection.
bool is_operator(const at::RecordFunction& fn) { return fn.operator_name().has_value(); }

void append_ints(std::string& out, c10::IntArrayRef values) {
    for (size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(values[i]);
    }
}

// One tensor as "sizes|strides|storage offset" ("2,3|1,2|0"), "-" when undefined.
void append_layout(std::string& out, const at::Tensor& t) {
    if (!out.empty()) out += ';';
    if (!t.defined()) {
        out += '-';
        return;
    }
    append_ints(out, t.sizes());
    out += '|';
    append_ints(out, t.strides());
    out += '|';
    out += std::to_string(t.storage_offset());
}

// The tensors of an operator's arguments in order, lists flattened, as the
// ET lists them (a None in a list of optional tensors is no tensor there).
std::string layouts_of(const at::RecordFunction& fn) {
    std::string out;
    for (const c10::IValue& v : fn.inputs()) {
        if (v.isTensor()) {
            append_layout(out, v.toTensor());
        } else if (v.isTensorList()) {
            for (const at::Tensor& t : v.toTensorVector()) append_layout(out, t);
        } else if (v.isList()) {
            for (const c10::IValue& e : v.toListRef())
                if (e.isTensor()) append_layout(out, e.toTensor());
        }
    }
    return out;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
    if (!is_operator(fn)) return nullptr;
    ThreadState& t = t_state;
    if (t.depth++ == 0) {
        t.name = fn.name();
        if (state().timing) {
            const int64_t before = now_ns();
            t.cpu_start_ns = thread_cpu_ns();
            t.start_ns = now_ns();
            t.start_read_ns = t.start_ns - before;
            return nullptr;
        }
        // Before the profiler's own start callback (global callbacks run
        // first), so outside the op's profiled interval.
        t.layouts = layouts_of(fn);
    }
    return nullptr;
}

// The fault count is read once per top-level operator, when it ends: an
// operator's faults are those since the previous one ended (the host code
// before it included). Each read is a syscall inside the op's profiled
// interval (~1 us with the callbacks, measured); the recorder calibrates that
// cost and the replay subtracts it.
void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
    if (!is_operator(fn)) return;
    ThreadState& t = t_state;
    if (t.depth == 0) return;  // began before the probe started
    if (--t.depth != 0) return;
    ProbeState& s = state();
    if (s.timing) {
        Record r{this_thread_key(), std::move(t.name), 0, {}, t.start_ns, now_ns()};
        r.cpu_start_ns = t.cpu_start_ns;
        r.cpu_end_ns = thread_cpu_ns();
        // Read with the clocks, outside the op and the gaps.
        r.faults = faults_since_last_op(t);
        r.clock_read_ns = t.start_read_ns + (now_ns() - r.end_ns);
        std::lock_guard<std::mutex> lock(s.mutex);
        s.records.push_back(std::move(r));
        return;
    }
    const int64_t faults = faults_since_last_op(t);
    std::lock_guard<std::mutex> lock(s.mutex);
    s.records.push_back({this_thread_key(), std::move(t.name), faults, std::move(t.layouts)});
}

}  // namespace

extern "C" {

// Starts counting; returns 0, or -1 when the probe already runs.
int mimic_fault_probe_start() {
    ProbeState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.handle != 0) return -1;
    s.records.clear();
    s.timing = false;
    count_faults_from_here();
    s.handle = at::addGlobalCallback(
        at::RecordFunctionCallback(on_start, on_end).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
    return 0;
}

// Starts timing mode: each top-level operator's start and end time, the thread's
// CPU clock at both, and its page faults.
// Returns 0, or -1 when the probe already runs.
int mimic_fault_probe_start_timing() {
    ProbeState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.handle != 0) return -1;
    s.records.clear();
    s.timing = true;
    t_state = ThreadState{};
    count_faults_from_here();
    s.handle = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
    return 0;
}

// Makes the operators this thread calls from now on nested (enter != 0) or
// top-level again (enter == 0), as if an operator were open around them:
// the recorder calibrates the timing mode's cost per nested event with it
// (a top-level op pays more: its clock reads).
void mimic_fault_probe_nest(int enter) {
    if (enter) ++t_state.depth;
    else if (t_state.depth > 0) --t_state.depth;
}

// Stops counting and writes one line per top-level operator, in the order
// they ran: "thread<TAB>faults<TAB>start_ns<TAB>end_ns<TAB>cpu_start_ns<TAB>
// cpu_end_ns<TAB>clock_read_ns<TAB>layouts<TAB>name" (times in timing mode
// only; layouts: see append_layout, ';' between tensors). Returns the number
// of lines, or -1 when the file cannot be written. A null path writes
// nothing and returns the number of records.
int64_t mimic_fault_probe_stop(const char* path) {
    ProbeState& s = state();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.handle != 0) at::removeCallback(s.handle);
        s.handle = 0;
    }
    t_state.counting = false;
    std::vector<Record> records;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        records.swap(s.records);
    }
    if (!path) return static_cast<int64_t>(records.size());  // a replay's pass: the probe's cost, not its records
    std::FILE* f = std::fopen(path, "w");
    if (!f) return -1;
    for (const Record& r : records)
        std::fprintf(f, "%llu\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%s\t%s\n", static_cast<unsigned long long>(r.thread),
                     static_cast<long long>(r.faults), static_cast<long long>(r.start_ns),
                     static_cast<long long>(r.end_ns), static_cast<long long>(r.cpu_start_ns),
                     static_cast<long long>(r.cpu_end_ns), static_cast<long long>(r.clock_read_ns), r.layouts.c_str(),
                     r.name.c_str());
    if (std::fclose(f) != 0) return -1;
    return static_cast<int64_t>(records.size());
}

}  // extern "C"
