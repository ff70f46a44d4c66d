// Helpers shared by the tests: where the real traces are, and a skip with a
// clear message when they are absent (a user's own clone has no ../shared).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace mimic::testing {

// The one setting: $MIMIC_TRACES_DIR, else the CMake cache value MIMIC_TRACES_DIR.
inline std::string traces_dir() {
    if (const char* env = std::getenv("MIMIC_TRACES_DIR"); env && *env) return env;
    return MIMIC_TRACES_DIR_DEFAULT;
}

inline std::string trace_path(const std::string& relative) { return traces_dir() + "/" + relative; }

// ASTRA-sim's reference cases sit beside the traces in ../shared (astra/).
inline std::string astra_dir() { return traces_dir() + "/../astra"; }

inline std::string scratch_dir(const std::string& name) {
    auto dir = std::filesystem::path(MIMIC_BINARY_DIR) / "test-scratch" / name;
    std::filesystem::create_directories(dir);
    return dir.string();
}

// Writes `text` to scratch_dir(dir)/file and returns its path: a trace a test
// spells out, read back through the real reader.
inline std::string scratch_file(const std::string& dir, const std::string& file, const std::string& text) {
    const std::string path = scratch_dir(dir) + "/" + file;
    std::ofstream(path) << text;
    return path;
}

// The message of the mimic::Error `f` throws; "" when it throws none.
template <typename Fn>
std::string error_message_of(Fn&& f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace mimic::testing

// Skips the current test when a shared trace is missing.
#define MIMIC_REQUIRE_TRACE(relative)                                                                    \
    do {                                                                                                 \
        if (!std::filesystem::exists(::mimic::testing::trace_path(relative)))                            \
            GTEST_SKIP() << "shared trace " << (relative) << " not found under "                          \
                         << ::mimic::testing::traces_dir() << " (set MIMIC_TRACES_DIR to ../shared/traces)"; \
    } while (0)
