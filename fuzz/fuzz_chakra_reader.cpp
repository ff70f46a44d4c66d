// libFuzzer target for the Chakra .et reader: varint framing, gzip,
// protobuf messages, attribute and IOInfo decoding, dependency checks. An
// input must either read into a Trace that keeps its invariants or fail with
// mimic::Error.
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input_file.h"
#include "io/chakra_reader.h"
#include "support/error.h"
#include "trace_checks.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("MIMIC_NO_PROGRESS", "1", 1);
    // protobuf logs every string field with invalid UTF-8; the reader reports
    // the failed parse itself, and the log lines would only slow the fuzzer.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static mimic::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    mimic::ChakraReadOptions options;
    options.progress = false;
    try {
        mimic::Trace t = mimic::read_chakra(path, options);
        mimic::fuzz::check_trace(t);
    } catch (const mimic::Error& e) {
        if (std::string(e.what()).empty()) mimic::fuzz::broken("empty error message", 0);
    }
    return 0;
}
