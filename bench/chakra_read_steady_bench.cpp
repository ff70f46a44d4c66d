// Chakra read speed as a steady figure on a VM whose speed drifts: reads one
// file READS times and prints the minimum and the median thread CPU time of a
// read (a preempted or slowed read moves neither much), and nodes per second
// at each. Compare builds by running their binaries alternately, several times.
//
//   chakra_read_steady_bench [FILE.et] [READS=100]
// Default file: $MIMIC_TRACES_DIR (or the configured traces dir)/chakra/feeder_sample.0.et.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "io/chakra/chakra_reader.h"
#include "support/error.h"

namespace {

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

std::string default_file() {
    const char* env = std::getenv("MIMIC_TRACES_DIR");
    return std::string(env && *env ? env : MIMIC_TRACES_DIR_DEFAULT) + "/chakra/feeder_sample.0.et";
}

}  // namespace

int main(int argc, char** argv) {
    const std::string file = argc > 1 && *argv[1] ? argv[1] : default_file();
    const int reads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 100;
    mimic::ChakraReadOptions options;
    options.progress = false;
    std::vector<double> ms;
    size_t nodes = 0;
    try {
        for (int i = 0; i < reads; ++i) {
            const double start = thread_cpu_ms();
            nodes = mimic::read_chakra(file, options).nodes.size();
            ms.push_back(thread_cpu_ms() - start);
        }
    } catch (const mimic::Error& e) {
        std::fprintf(stderr, "chakra_read_steady_bench: %s\n", e.what());
        return 1;
    }
    std::sort(ms.begin(), ms.end());
    const double min = ms.front(), median = ms[ms.size() / 2];
    std::printf("%s: %zu nodes, %d reads: min %.3f ms (%.0fk nodes/s), median %.3f ms (%.0fk nodes/s)\n",
                file.c_str(), nodes, reads, min, double(nodes) / min, median, double(nodes) / median);
    return 0;
}
