// Reads the members of a fleet on every core and computes each one's
// signature. A member that cannot be read is kept with the reason (file and
// what failed) and never stops the others.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "compose/fleet_inputs.h"
#include "compose/fleet_signature.h"

namespace mimic::fleet {

// One member's outcome.
struct FleetItem {
    size_t index = 0;   // position in the whole listing (the same in every shard)
    std::string path;
    bool ok = false;
    Signature signature;  // when ok
    std::string reason;   // when not: what failed, naming the file
};

struct ScanOptions {
    unsigned threads = 0;  // 0: every core
    int shard = 0;         // this process reads the members whose index % shards == shard
    int shards = 1;
    SignatureOptions signature;
    // Called from the reading threads (serialised) after each member: done, of total.
    std::function<void(size_t done, size_t total, size_t failed)> progress;
};

// One member: its trace (with profile and meta for a recording) read and signed.
FleetItem scan_one(const FleetInput& input, size_t index, const SignatureOptions& options);

// This shard's members, in listing order.
std::vector<FleetItem> scan_fleet(const std::vector<FleetInput>& inputs, const ScanOptions& options);

}  // namespace mimic::fleet
