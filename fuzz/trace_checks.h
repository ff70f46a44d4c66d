// Invariants every Trace a reader returns must hold, whatever the input. A
// reader that accepts a file must hand back ranges and indexes that stay in
// bounds and a parent tree without cycles; otherwise a later tool reads out
// of bounds or walks forever on a trace that "read fine". A broken invariant
// is a bug in the reader, so the fuzzer stops there (trap = crash report).
#pragma once

#include <cstdio>
#include <cstdlib>

#include "trace/trace.h"

namespace mimic::fuzz {

[[noreturn]] inline void broken(const char* what, uint64_t where) {
    std::fprintf(stderr, "mimic fuzz: invariant broken: %s (at %llu)\n", what, static_cast<unsigned long long>(where));
    __builtin_trap();
}

inline void check_range(ValueRange r, size_t size, const char* what, uint64_t where) {
    if (uint64_t(r.begin) + r.count > size) broken(what, where);
}

inline void check_value(const Trace& t, const Value& v, uint64_t where) {
    if (v.type.value >= t.strings.size()) broken("value type string id out of range", where);
    switch (v.kind) {
        case ValueKind::Tensor: {
            if (v.payload.index >= t.tensors.size()) broken("tensor index out of range", where);
            const TensorMeta& m = t.tensors[v.payload.index];
            uint64_t dims = uint64_t(m.rank) * (m.has_strides ? 2 : 1);
            if (uint64_t(m.dims_begin) + dims > t.dims.size()) broken("tensor dims out of range", where);
            if (m.device.value >= t.strings.size() || m.dtype.value >= t.strings.size())
                broken("tensor string id out of range", where);
            break;
        }
        case ValueKind::List: check_range(v.payload.range, t.values.size(), "list range out of range", where); break;
        case ValueKind::String:
        case ValueKind::Device:
        case ValueKind::Unknown:
            if (v.payload.str.value >= t.strings.size()) broken("value string id out of range", where);
            break;
        default: break;
    }
}

inline void check_trace(const Trace& t) {
    const size_t n = t.nodes.size();
    for (size_t i = 0; i < n; ++i) {
        const Node& node = t.nodes[i];
        check_range(node.inputs, t.values.size(), "inputs range out of range", i);
        check_range(node.outputs, t.values.size(), "outputs range out of range", i);
        check_range(node.attrs, t.attrs.size(), "attrs range out of range", i);
        check_range(node.deps, t.edges.size(), "deps range out of range", i);
        check_range(node.data_deps, t.edges.size(), "data_deps range out of range", i);
        if (node.name.value >= t.strings.size() || node.op_schema.value >= t.strings.size())
            broken("node string id out of range", i);
    }
    for (size_t i = 0; i < t.values.size(); ++i) check_value(t, t.values[i], i);
    for (size_t i = 0; i < t.attrs.size(); ++i) {
        if (t.attrs[i].name.value >= t.strings.size()) broken("attr name id out of range", i);
        check_value(t, t.attrs[i].value, i);
    }
    for (const Attr& a : t.metadata_attrs) check_value(t, a.value, 0);
    // The tree: every walk up ends within n steps (no cycle survives finalize()).
    if (t.execution_order().size() != n) broken("execution order does not hold every node", n);
    size_t with_parent = 0;
    for (uint32_t i = 0; i < n; ++i) {
        NodeIndex p = t.parent_of(NodeIndex(i));
        if (p == kNoNode) continue;
        ++with_parent;
        if (p.value >= n) broken("parent index out of range", i);
        size_t steps = 0;
        for (NodeIndex cur = p; cur != kNoNode; cur = t.parent_of(cur))
            if (++steps > n) broken("parent chain does not end (cycle)", i);
    }
    size_t children = 0;
    for (uint32_t i = 0; i < n; ++i) {
        for (const NodeIndex* c = t.children_begin(NodeIndex(i)); c != t.children_end(NodeIndex(i)); ++c) {
            if (c->value >= n || t.parent_of(*c) != NodeIndex(i)) broken("child list disagrees with parents", i);
            ++children;
        }
    }
    if (children != with_parent) broken("child lists do not hold every node with a parent", children);
}

}  // namespace mimic::fuzz
