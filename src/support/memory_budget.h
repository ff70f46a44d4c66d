// How much memory a job may use: sizes as users write them ("4G", "512M",
// "1.5GiB", plain bytes) and what this machine has free right now.
#pragma once

#include <cstdint>
#include <string>

namespace mimic {

// "4G" = 4 GiB: K, M, G, T (with or without "iB"/"B") are powers of 1024.
// Throws mimic::Error naming `option` for anything else.
uint64_t parse_memory_size(const std::string& text, const std::string& option);

// MemAvailable from /proc/meminfo (what can be allocated without swapping);
// 0 when it cannot be read.
uint64_t available_memory_bytes();

std::string format_mib(uint64_t bytes);

}  // namespace mimic
