// `mimic scale --keep-layers K`: the same training step with only the first
// K of a model's repeated layers, an ET of the same schema that replay runs:
// a deep model shrunk to fit a small machine, its step's shape kept.
//
// The layers are found as compose/layer_analysis.h says. The last N-K are
// dropped: their forward, backward and optimizer units, and their elements
// in the lists of a foreach optimizer's ops. What a kept op read from a
// dropped one is rewired: the head reads the last kept layer's output where
// it read the last layer's; the last kept layer's backward reads the gradient
// the last layer's backward read.
#pragma once

#include <cstdint>
#include <string>

#include "compose/et_document.h"

namespace mimic::compose {

struct LayerStats {
    int64_t layers_before = 0;       // blocks in the repeated run
    int64_t layers_after = 0;
    int64_t units_per_layer = 0;     // forward top-level ops per block
    uint64_t first_layer_node = 0;   // id of the run's first forward op
    uint64_t nodes_removed = 0;
    uint64_t inputs_rewired = 0;     // tensor inputs of kept ops pointed at a kept producer
    uint64_t inputs_left = 0;        // made by a dropped op with no counterpart: replay materialises them
    uint64_t list_elements_removed = 0;  // dropped layers' tensors taken out of foreach ops' lists
    uint64_t nodes_added = 0;        // --repeat-layers: nodes of the copied layers
    uint64_t list_elements_added = 0;  // the copies' tensors put into foreach ops' lists
    std::string layer_ops;           // the block's op names, for the report ("aten::linear, aten::relu")
};

// Rewrites `doc` in place. Throws mimic::Error naming the file, node and
// field when no repeated block is found, K is out of range, the layers'
// backward or optimizer work differs, or one op other than a foreach op
// serves several layers (DDP's flat gradient buckets).
LayerStats keep_layers(EtDocument& doc, int64_t keep);

// `--repeat-layers K`: the step with K layers (K above the trace's N), each
// new one a copy of the last: its forward after the last layer's, its
// backward before it (backward runs from the last layer down), its zero_grad
// and optimizer work after the last layer's, with fresh tensor, storage and
// sequence ids, and node ids renumbered in execution order. The head then
// reads the last copy's output and the recorded last layer's backward the
// first copy's gradient. A foreach op's lists get the copies' tensors after
// the last layer's.
LayerStats repeat_layers(EtDocument& doc, int64_t layers);

}  // namespace mimic::compose
