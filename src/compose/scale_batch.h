// `mimic scale --batch X`: the same training step at X times the batch,
// written as an ET of the same schema that replay runs at the new size.
//
// How the batch dimension is found, without a table of every operator:
// - The step's data are the tensors it reads but never makes, less the
//   parameters, optimizer state and buffers (what the optimizer step
//   touches, and what a layer's schema names weight, bias or running
//   statistics), embedding indices and offsets always included. Their first
//   dimensions are the batch values: B itself (the most common one among
//   data other than embedding indices, or --batch-size), and others such as
//   the number of embedding indices, which also grow with the batch. An
//   input of a parameter's shape (labels [B] beside a bias [B], a pruning
//   mask) is data only if it leads with B and no op writes it in place.
// - A tensor carries the batch when it is made from data (dataflow). Its
//   batch dimension is followed from the op's input: same place and size,
//   same size elsewhere (transposes), the same flat stride through views and
//   reshapes (a seq-first [S*B, H] splits into [S, B*heads, d] at the right
//   dimension), the same place a few elements off (offsets[1:]); else a
//   dimension of a batch size. An output with none of these is a reduction
//   over the batch (the loss, a gradient) and keeps its shape; so do the
//   outputs of mm/addmm/bmm operands whose batch is the contracted
//   dimension, and batch-norm/convolution-backward statistics and weight
//   gradients. Data with no batch dimension found is an error naming the op.
// - Integer lists an op received that spell a scaled tensor's old shape or
//   strides (view, reshape, expand, as_strided, zeros sizes...) are
//   rewritten to the new ones; strides are recomputed in the tensor's own
//   dimension order.
#pragma once

#include <cstdint>
#include <string>

#include "compose/et_document.h"

namespace mimic::compose {

struct ScaleOptions {
    double factor = 1;       // new batch / old batch
    int64_t batch_size = 0;  // the trace's batch B; 0 = inferred from its data
};

struct ScaleStats {
    int64_t batch_before = 0;
    int64_t batch_after = 0;
    std::string batch_values;  // every first dimension of the data, e.g. "128" or "256, 5123"
    uint64_t data_tensors = 0;
    uint64_t scaled_tensors = 0;      // tensor occurrences whose shape changed
    uint64_t rewritten_lists = 0;     // integer-list arguments rewritten
    uint64_t parameter_shapes = 0;    // distinct shapes taken as parameters or optimizer state
};

// Rewrites `doc` in place. Throws mimic::Error naming the file, node and
// field when the batch cannot be found or a shape would not be whole.
ScaleStats scale_batch(EtDocument& doc, const ScaleOptions& options);

// The ET at `input` rewritten at another batch into `output`, in its own
// schema's layout: what `mimic scale` writes, and what predict and calibrate
// read for a batch what-if.
ScaleStats scale_batch_file(const std::string& input, const ScaleOptions& options, const std::string& output);

}  // namespace mimic::compose
