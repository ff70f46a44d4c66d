// `mimic cut`: a smaller execution trace made of one region of a bigger one,
// still a valid ET of the same schema version, so every tool (replay above
// all) takes it. Node ids stay as they were, so a cut's ops can be found in
// reports on the full trace; nodes whose parent is left out hang from their
// thread's root. Tensors the region reads but did not make are left as
// inputs, which replay materialises from their recorded shape and dtype; one
// with no shape cannot be, and the cut is refused naming it. Tensors the region
// makes that the full trace reads after it (activations kept for backward) are
// listed in a top-level "mimic_cut": {"region", "live_out"} that replay reads:
// it keeps them alive to the iteration's end, so the region runs on the memory
// it had inside the full replay (readers that do not know the key ignore it).
#pragma once

#include <cstdint>
#include <string>

#include "compose/et_document.h"

namespace mimic::compose {

struct CutSelection {
    enum class Mode : uint8_t { Iteration, Subtree, Ops, Nodes };
    Mode mode = Mode::Subtree;
    // Iteration: N of ProfilerStep#N, else the N-th (0-based) ProfilerStep label,
    // as `mimic replay --iteration` counts. Subtree: a node id, or a node name
    // (its first occurrence). Ops: a regex searched in node names; each match
    // not inside another is taken with everything below it. Nodes: "A..B", the
    // ids from A to B inclusive with everything below them.
    std::string argument;
};

struct CutStats {
    uint64_t nodes_before = 0;
    uint64_t nodes_after = 0;     // roots included
    uint64_t regions = 0;         // top nodes taken (with their subtrees)
    uint64_t first_id = 0;        // id range of the region's nodes
    uint64_t last_id = 0;
    uint64_t external_tensors = 0;  // read by the region, made before it: replay materialises them
    uint64_t live_out_tensors = 0;  // made by the region, read after it: replay keeps them to the end
    std::string description;      // what was cut, for reports ("subtree of node 52 '## forward ##'")
};

// Rewrites `doc` to the cut. Throws mimic::Error naming the file, the node
// and the field when the selection matches nothing or would orphan a tensor.
CutStats cut_trace(EtDocument& doc, const CutSelection& selection);

}  // namespace mimic::compose
