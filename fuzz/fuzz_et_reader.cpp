// libFuzzer target for the PyTorch ET reader, through load_trace (content
// detection, gzip, streaming JSON, node and value parsing, finalize).
// An input must either read into a Trace that keeps its invariants or fail
// with mimic::Error; any other exception, a crash, a hang or a leak is a bug.
// Each accepted input is read a second time with one node per batch: the
// batch size is a performance knob and must never change the result.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input_file.h"
#include "io/pytorch_et/et_reader.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "trace_checks.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("MIMIC_NO_PROGRESS", "1", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static mimic::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    std::string first_error;
    size_t nodes = 0;
    try {
        mimic::Trace t = mimic::load_trace(path);
        mimic::fuzz::check_trace(t);
        if (t.format != mimic::TraceFormat::PyTorchEt) return 0;  // Chakra has its own target
        nodes = t.nodes.size();
    } catch (const mimic::Error& e) {
        first_error = e.what();
        if (first_error.empty()) mimic::fuzz::broken("empty error message", 0);
    }
    try {
        if (mimic::detect_file_kind(path) != mimic::FileKind::PyTorchEt) return 0;
    } catch (const mimic::Error&) {
        return 0;  // unreadable (bad gzip): load_trace already had to fail cleanly on it
    }
    mimic::EtReadOptions one_per_batch;
    one_per_batch.batch_bytes = 1;
    one_per_batch.progress = false;
    try {
        mimic::Trace t = mimic::read_pytorch_et(path, one_per_batch);
        mimic::fuzz::check_trace(t);
        if (!first_error.empty()) {
            std::fprintf(stderr, "default batches failed (%s), one node per batch read %zu nodes\n",
                         first_error.c_str(), t.nodes.size());
            mimic::fuzz::broken("batch size changed the result", 0);
        }
        if (t.nodes.size() != nodes) mimic::fuzz::broken("batch size changed the node count", t.nodes.size());
    } catch (const mimic::Error& e) {
        if (first_error.empty()) {
            std::fprintf(stderr, "default batches read %zu nodes, one node per batch failed: %s\n", nodes, e.what());
            mimic::fuzz::broken("batch size changed the result", 0);
        }
    }
    return 0;
}
