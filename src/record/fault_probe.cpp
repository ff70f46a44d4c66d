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
#include <ATen/record_function.h>
#include <sys/resource.h>

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
};

struct ProbeState {
    std::mutex mutex;
    std::vector<Record> records;
    at::CallbackHandle handle = 0;
};

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
};
thread_local ThreadState t_state;

// Labels such as "autograd::engine::evaluate_function: AddmmBackward0" are
// FUNCTION-scope too, but name no operator: the ops inside them are the
// top-level ones, as in the replay's selection.
bool is_operator(const at::RecordFunction& fn) { return fn.operator_name().has_value(); }

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
    if (!is_operator(fn)) return nullptr;
    ThreadState& t = t_state;
    if (t.depth++ == 0) t.name = fn.name();
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
    const int64_t now = minor_faults();
    if (!t.counting) t.last = now;  // a thread's first operator: no start to count from
    t.counting = true;
    ProbeState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.records.push_back({std::hash<std::thread::id>()(std::this_thread::get_id()), std::move(t.name), now - t.last});
    t.last = now;
}

}  // namespace

extern "C" {

// Starts counting; returns 0, or -1 when the probe already runs.
int mimic_fault_probe_start() {
    ProbeState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.handle != 0) return -1;
    s.records.clear();
    t_state.counting = true;  // the calling thread counts from here
    t_state.last = minor_faults();
    s.handle = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
    return 0;
}

// Stops counting and writes one line per top-level operator, in the order
// they ran: "thread<TAB>faults<TAB>name". Returns the number of lines, or -1
// when the file cannot be written.
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
    std::FILE* f = std::fopen(path, "w");
    if (!f) return -1;
    for (const Record& r : records)
        std::fprintf(f, "%llu\t%lld\t%s\n", static_cast<unsigned long long>(r.thread), static_cast<long long>(r.faults),
                     r.name.c_str());
    if (std::fclose(f) != 0) return -1;
    return static_cast<int64_t>(records.size());
}

}  // extern "C"
