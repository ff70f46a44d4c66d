// libFuzzer target for the profiler (Kineto / Chrome trace) reader. An input
// must either read into a ProfileTrace whose indexes stay in bounds and
// whose per-thread nesting is a forest, or fail with mimic::Error. As for
// the ET reader, one event per batch must give the same result.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input_file.h"
#include "io/kineto/kineto_reader.h"
#include "support/error.h"
#include "trace_checks.h"

namespace {

void check_profile(const mimic::ProfileTrace& t) {
    using mimic::fuzz::broken;
    const size_t strings = t.strings.size();
    for (size_t i = 0; i < t.threads.size(); ++i)
        if (t.threads[i].label.value >= strings || t.threads[i].name.value >= strings)
            broken("thread string id out of range", i);
    for (size_t i = 0; i < t.host.size(); ++i) {
        const mimic::HostEvent& h = t.host[i];
        if (h.thread >= t.threads.size()) broken("host event thread out of range", i);
        if (h.name.value >= strings) broken("host event name out of range", i);
        if (h.parent != mimic::kNoEvent) {
            if (h.parent >= t.host.size()) broken("host event parent out of range", i);
            if (t.host[h.parent].thread != h.thread) broken("host event parent on another thread", i);
        }
        size_t steps = 0;
        for (uint32_t p = h.parent; p != mimic::kNoEvent; p = t.host[p].parent)
            if (++steps > t.host.size()) broken("host event parent chain does not end (cycle)", i);
    }
    size_t ordered = 0;
    for (uint32_t th : t.host_threads()) {
        if (th >= t.threads.size()) broken("host thread out of range", th);
        for (uint32_t e : t.host_order(th)) {
            if (e >= t.host.size() || t.host[e].thread != th) broken("host order names a foreign event", e);
            ++ordered;
        }
    }
    if (ordered != t.host.size()) broken("host order does not hold every host event", ordered);
    for (size_t i = 0; i < t.runtime.size(); ++i)
        if (t.runtime[i].thread >= t.threads.size() || t.runtime[i].name.value >= strings)
            broken("runtime event index out of range", i);
    for (size_t i = 0; i < t.device.size(); ++i)
        if (t.device[i].thread >= t.threads.size() || t.device[i].name.value >= strings ||
            t.device[i].process_group.value >= strings)
            broken("device event index out of range", i);
    for (size_t i = 0; i < t.flows.size(); ++i)
        if (t.flows[i].thread >= t.threads.size() || t.flows[i].category.value >= strings)
            broken("flow event index out of range", i);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("MIMIC_NO_PROGRESS", "1", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static mimic::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    mimic::KinetoReadOptions options;
    options.progress = false;
    bool first_ok = false;
    size_t events = 0;
    std::string first_error;
    try {
        mimic::ProfileTrace t = mimic::read_kineto_trace(path, options);
        check_profile(t);
        first_ok = true;
        events = t.host.size() + t.runtime.size() + t.device.size() + t.flows.size();
    } catch (const mimic::Error& e) {
        first_error = e.what();
        if (first_error.empty()) mimic::fuzz::broken("empty error message", 0);
    }
    options.batch_bytes = 1;
    try {
        mimic::ProfileTrace t = mimic::read_kineto_trace(path, options);
        if (!first_ok) {
            std::fprintf(stderr, "default batches failed (%s), one event per batch succeeded\n", first_error.c_str());
            mimic::fuzz::broken("batch size changed the result", 0);
        }
        if (t.host.size() + t.runtime.size() + t.device.size() + t.flows.size() != events)
            mimic::fuzz::broken("batch size changed the event count", events);
    } catch (const mimic::Error& e) {
        if (first_ok) {
            std::fprintf(stderr, "default batches succeeded, one event per batch failed: %s\n", e.what());
            mimic::fuzz::broken("batch size changed the result", 0);
        }
    }
    return 0;
}
