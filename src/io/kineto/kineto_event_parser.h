// Interprets one element of a Chrome trace's traceEvents list (already parsed
// by simdjson) into a ProfileTrace: one pass over the event's fields with a
// switch on the key, and the same over its args.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "io/kineto/kineto_trace.h"

namespace mimic {

// What an event's "cat" says it is.
enum class EventClass : uint8_t { HostOp, Annotation, PythonFunction, Runtime, Kernel, Memcpy, Memset, Other };

// Kineto's category names across versions ("cpu_op", older "Operator", "Runtime", "Kernel"...).
EventClass classify_category(std::string_view cat);
// An event without "cat" by its process, as the legacy profiler exports it.
EventClass classify_legacy_process(simdjson::dom::element pid);

class KinetoEventParser {
public:
    KinetoEventParser(ProfileTrace& out, std::string path) : out_(out), path_(std::move(path)) {}
    // Throws mimic::Error naming the file, the event's byte offset and the field.
    void parse(simdjson::dom::element event, uint64_t offset);

private:
    struct Args;
    void read_args(simdjson::dom::element args, Args& into);
    uint32_t track(simdjson::dom::element pid, simdjson::dom::element tid, bool has_pid, bool has_tid);
    void on_metadata(std::string_view name, uint32_t thread, simdjson::dom::element args, bool has_args);

    [[noreturn]] void bad(std::string_view field, const std::string& message) const;
    double number(simdjson::dom::element e, std::string_view field) const;
    int64_t integer(simdjson::dom::element e, std::string_view field) const;
    std::string_view string(simdjson::dom::element e, std::string_view field) const;

    ProfileTrace& out_;
    std::string path_;
    uint64_t offset_ = 0;  // of the event being parsed
    // The last track looked up: consecutive events are mostly on one thread.
    int64_t last_pid_ = INT64_MIN;
    int64_t last_tid_ = INT64_MIN;
    uint32_t last_track_ = 0;
};

}  // namespace mimic
