// Reading speed and peak memory of the ET reader. Run on a real trace and on
// a generated big one (bench/make_big_et.py); reports MB/s of uncompressed
// JSON and peak resident memory against the JSON size.
//
// usage: et_reader_bench FILE [FILE...]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "io/pytorch_et/et_reader.h"
#include "support/byte_source.h"
#include "support/error.h"

namespace {

uint64_t uncompressed_size(const std::string& path) {
    mimic::ByteSource src(path);
    std::vector<char> buf;
    uint64_t total = 0;
    for (;;) {
        buf.clear();
        size_t got = src.read(buf, 16 << 20);
        if (got == 0) break;
        total += got;
    }
    return total;
}

double peak_rss_bytes() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) * 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s ET_FILE [ET_FILE...]\n", argv[0]);
        return 2;
    }
    try {
        for (int i = 1; i < argc; ++i) {
            std::string path = argv[i];
            uint64_t bytes = uncompressed_size(path);
            double rss_before = peak_rss_bytes();
            auto t0 = std::chrono::steady_clock::now();
            mimic::EtReadOptions options;
            options.progress = false;
            mimic::Trace t = mimic::read_pytorch_et(path, options);
            double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            double rss = peak_rss_bytes();
            std::printf(
                "{\"file\": \"%s\", \"json_bytes\": %llu, \"nodes\": %zu, \"seconds\": %.3f, \"mb_per_s\": %.1f, "
                "\"peak_rss_bytes\": %.0f, \"peak_rss_over_json\": %.2f}\n",
                path.c_str(), static_cast<unsigned long long>(bytes), t.nodes.size(), secs, bytes / secs / 1e6, rss,
                (rss > rss_before ? rss : rss_before) / static_cast<double>(bytes));
        }
    } catch (const mimic::Error& e) {
        std::fprintf(stderr, "et_reader_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
