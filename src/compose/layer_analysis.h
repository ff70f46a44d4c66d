// The repeated layers of a training step's ET, found without module names:
// what `mimic scale --keep-layers` trims and `--repeat-layers` copies.
// - The step's top-level units (operators, autograd's evaluate_function
//   wrappers) are signed by name and input shapes, subtree included. The
//   forward is every unit before backward's first wrapper. Its longest run of
//   N >= 2 identical consecutive blocks that backward differentiates is the
//   repeated layer (zero_grad's per-parameter ops repeat too, but backward
//   reaches none of them).
// - A backward unit belongs to the block whose forward recorded its sequence
//   number (autograd's link between the two). A unit outside both, with no
//   such link (gradient accumulation, zero_grad, the optimizer's per-parameter
//   ops), belongs to the block whose parameters, gradients or optimizer state
//   it touches, followed through the temporaries it makes. Storage ids are
//   addresses in 1.13's traces and are reused: a storage made afresh starts a
//   new generation. Scalars (wrapped Python numbers, AdamW's step counts) are
//   placed with the next unit of their parameter.
// - A foreach op (PyTorch 2.x's optimizer) that takes every layer's tensors
//   is no layer's; its lists are edited instead.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compose/et_document.h"

namespace mimic::compose {

enum class UnitKind : uint8_t { Forward, Backward, Other };

struct LayerUnit {
    size_t node = 0;               // index into the document's nodes
    std::vector<size_t> subtree;   // the unit and everything below it, preorder
    uint64_t signature = 0;
    int64_t block = -1;            // -1: not part of a repeated layer
    bool fixed = false;            // block known from the forward run or autograd's link
    bool scalars_only = false;     // touches no tensor but scalars (an optimizer's step count)
    bool all_layers = false;       // a foreach op over every layer's tensors
    UnitKind kind = UnitKind::Other;
};

// Where a node sits inside its layer, to find its counterpart in another layer.
struct LayerPlace {
    size_t unit = SIZE_MAX;
    size_t index = 0;  // preorder position in the unit's subtree
};

// Who made a tensor a node read, when it read it: (node, output position).
using Producer = std::pair<size_t, size_t>;
constexpr Producer kNoProducer{SIZE_MAX, 0};

class LayerAnalysis {
public:
    // Finds the layers; throws mimic::Error naming the file (and node) and
    // `option` when there is no repeated layer or one op serves several.
    LayerAnalysis(EtDocument& doc, const std::string& option);

    EtDocument& doc() { return doc_; }
    std::vector<JsonValue>& nodes() { return nodes_; }
    const std::vector<LayerUnit>& units() const { return units_; }
    const LayerPlace& place(size_t node) const { return place_[node]; }
    size_t count() const { return count_; }         // N, the repeated layers
    size_t period() const { return period_; }       // forward units per layer
    uint64_t first_layer_node() const;              // id of the first layer's first forward op
    std::string layer_ops() const;                  // the layer's forward op names
    // Parameter, gradient and optimizer-state storage -> layer.
    const std::map<int64_t, int64_t>& persistent_block() const { return persistent_block_; }
    // Every node's index, in execution (id) order, and who made each input it read.
    const std::vector<size_t>& order() const { return order_; }
    const std::vector<Producer>& made_by(size_t node) const { return made_by_[node]; }
    // The layer of the unit a node belongs to (-1: none).
    int64_t block_of(size_t node) const;

    // Fails unless layers a and b do the same work unit for unit.
    void require_alike(size_t a, size_t b) const;
    // The node at the same place in layer `block`, or SIZE_MAX when that
    // layer's unit there has another shape.
    size_t counterpart(size_t node, int64_t block) const;
    // Pointers to a node's tensor values on one side, in visiting order.
    std::vector<JsonValue*> tensors_of(size_t node, bool outputs);
    [[noreturn]] void fail_at(size_t node, const std::string& field, const std::string& message) const;

private:
    static bool is_unit(const JsonValue& n);
    void index_nodes();
    void collect_units();
    void find_run();
    std::vector<int64_t> seq_ids(const LayerUnit& u) const;
    std::map<int64_t, int64_t> seq_blocks(size_t start, size_t period, size_t count) const;
    bool backward_reaches_every_block(size_t start, size_t period, size_t count) const;
    void link_backward();
    void follow_storages();
    void place_scalar_units();
    void group_blocks();
    void record_producers();

    EtDocument& doc_;
    std::vector<JsonValue>& nodes_;
    std::string option_;
    std::vector<std::vector<size_t>> children_;
    std::vector<LayerUnit> units_;
    std::vector<LayerPlace> place_;
    size_t forward_end_ = 0, run_start_ = 0, period_ = 0, count_ = 0;
    std::map<std::pair<int64_t, int64_t>, int64_t> storage_block_;  // (storage, generation) -> layer
    std::set<std::pair<int64_t, int64_t>> storage_made_;            // made in the step, not carried in
    std::map<int64_t, int64_t> persistent_block_;
    std::vector<std::map<UnitKind, std::vector<size_t>>> layer_units_;
    std::vector<size_t> order_;
    std::vector<std::vector<Producer>> made_by_;
};

// A tensor value of at most one element (a wrapped Python number, a step
// count): its ids are addresses Python reuses at once, so they say nothing of
// where it came from or which layer it belongs to.
bool is_scalar_tensor(const JsonValue& value);

// Pointers to a node's tensor values on one side, in visiting order.
std::vector<JsonValue*> tensor_values(const EtDocument& doc, JsonValue& node, bool outputs);

// Makes list `v` of a side's values (a foreach op's tensor list) the
// elements at `picks` of the old list (repeats allowed) with `values` as
// their tensor values; the aligned shapes and strides and the list's type
// string ("GenericList[Tensor(float),...]") follow the same picks.
void rebuild_tensor_list(const EtValues& side, size_t v, const std::vector<size_t>& picks, std::vector<JsonValue> values);

}  // namespace mimic::compose
