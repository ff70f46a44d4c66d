#include "compose/generate_files.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "io/chakra/chakra_writer.h"
#include "io/chakra/chakra_writer_file.h"

namespace mimic::compose {
namespace {

// Ranks that share one encoding. Their files are written in slices, so that
// one encoding shared by every rank still keeps all cores writing.
struct Group {
    std::vector<int64_t> ranks;
    std::once_flag encoded;
    std::unique_ptr<ChakraWireEncoder> bytes;
    std::atomic<size_t> slices_left{0};
};

struct Slice {
    Group* group;
    size_t begin, end;  // into group->ranks
};

constexpr size_t kSliceRanks = 256;

class Progress {
public:
    Progress(std::string label, int64_t total) : label_(std::move(label)), total_(total) {
        enabled_ = !std::getenv("MIMIC_NO_PROGRESS");
        tty_ = isatty(STDERR_FILENO);
        start_ = last_ = std::chrono::steady_clock::now();
    }
    void show(int64_t files, uint64_t bytes, bool final) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        if (!final && (elapsed < 1.0 || now - last_ < std::chrono::seconds(2))) return;
        if (final && !shown_) return;  // quick runs print nothing
        last_ = now;
        shown_ = true;
        std::fprintf(stderr, "%s%s: %lld of %lld rank files written, %.1f MB, %.1f s%s", tty_ ? "\r" : "", label_.c_str(),
                     static_cast<long long>(files), static_cast<long long>(total_), static_cast<double>(bytes) / 1e6, elapsed,
                     tty_ && !final ? "" : "\n");
        std::fflush(stderr);
    }

private:
    std::string label_;
    int64_t total_;
    bool enabled_, tty_, shown_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace

RankFilesStats write_rank_files(const RankFilesJob& job) {
    const auto t0 = std::chrono::steady_clock::now();
    RankFilesStats stats;
    stats.files = job.ranks;
    stats.file_bytes.assign(static_cast<size_t>(job.ranks), 0);

    std::vector<std::unique_ptr<Group>> groups;
    {
        std::unordered_map<std::string, size_t> by_key;
        for (int64_t r = 0; r < job.ranks; ++r) {
            auto [it, added] = by_key.emplace(job.key(r), groups.size());
            if (added) groups.push_back(std::make_unique<Group>());
            groups[it->second]->ranks.push_back(r);
        }
    }
    stats.encodings = static_cast<int64_t>(groups.size());
    std::vector<Slice> slices;
    for (auto& g : groups) {
        for (size_t b = 0; b < g->ranks.size(); b += kSliceRanks) slices.push_back({g.get(), b, std::min(g->ranks.size(), b + kSliceRanks)});
        g->slices_left = (g->ranks.size() + kSliceRanks - 1) / kSliceRanks;
    }

    std::atomic<size_t> next{0};
    std::atomic<int64_t> files_done{0};
    std::atomic<uint64_t> bytes_done{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex mutex;
    std::condition_variable finished;
    int running = 0;

    auto worker = [&] {
        try {
            for (size_t i; !stop && (i = next++) < slices.size();) {
                Slice& s = slices[i];
                Group& g = *s.group;
                std::call_once(g.encoded, [&] {
                    auto enc = std::make_unique<ChakraWireEncoder>();
                    job.encode(g.ranks.front(), *enc);
                    g.bytes = std::move(enc);
                });
                const ChakraWireEncoder& bytes = *g.bytes;
                for (size_t k = s.begin; k < s.end && !stop; ++k) {
                    const int64_t r = g.ranks[k];
                    ChakraOutputFile file(chakra_output_path(job.prefix, r));
                    file.write(bytes.data(), bytes.size());
                    file.close();
                    stats.file_bytes[static_cast<size_t>(r)] = bytes.size();
                    ++files_done;
                    bytes_done += bytes.size();
                }
                // The last slice of a group frees its encoding.
                if (--g.slices_left == 0) g.bytes.reset();
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!error) error = std::current_exception();
            stop = true;
        }
        std::lock_guard<std::mutex> lock(mutex);
        --running;
        finished.notify_all();
    };

    const int threads = std::max(1, std::min<int>(job.threads, static_cast<int>(slices.size())));
    std::vector<std::thread> pool;
    running = threads;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    Progress progress(job.label, job.ranks);
    {
        std::unique_lock<std::mutex> lock(mutex);
        while (running > 0) {
            finished.wait_for(lock, std::chrono::milliseconds(250));
            progress.show(files_done, bytes_done, false);
        }
    }
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
    progress.show(files_done, bytes_done, true);
    stats.bytes = bytes_done;
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats;
}

}  // namespace mimic::compose
