// Value comparison shared by the Chakra tests: two values, each in its own
// trace, are the same structurally (kind, payload, tensor metadata and
// shape, list elements, type string).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "trace/trace.h"

namespace mimic::testing {

inline void expect_same_value(const Trace& a, const Value& va, const Trace& b, const Value& vb,
                              const std::string& where) {
    ASSERT_EQ(va.kind, vb.kind) << where;
    switch (va.kind) {
        case ValueKind::Int: EXPECT_EQ(va.payload.i, vb.payload.i) << where; break;
        case ValueKind::Double: EXPECT_DOUBLE_EQ(va.payload.d, vb.payload.d) << where; break;
        case ValueKind::Bool: EXPECT_EQ(va.payload.b, vb.payload.b) << where; break;
        case ValueKind::String:
        case ValueKind::Device: EXPECT_EQ(a.str(va.payload.str), b.str(vb.payload.str)) << where; break;
        case ValueKind::Tensor: {
            const TensorMeta& ta = a.tensor(va);
            const TensorMeta& tb = b.tensor(vb);
            EXPECT_EQ(ta.tensor_id, tb.tensor_id) << where;
            EXPECT_EQ(ta.storage_id, tb.storage_id) << where;
            EXPECT_EQ(ta.offset, tb.offset) << where;
            EXPECT_EQ(ta.numel, tb.numel) << where;
            EXPECT_EQ(ta.itemsize, tb.itemsize) << where;
            EXPECT_EQ(a.str(ta.device), b.str(tb.device)) << where;
            EXPECT_EQ(a.str(ta.dtype), b.str(tb.dtype)) << where;
            ASSERT_EQ(ta.rank, tb.rank) << where;
            for (uint16_t k = 0; k < ta.rank; ++k) EXPECT_EQ(a.shape(ta)[k], b.shape(tb)[k]) << where;
            break;
        }
        case ValueKind::List:
            ASSERT_EQ(va.payload.range.count, vb.payload.range.count) << where;
            for (uint32_t k = 0; k < va.payload.range.count; ++k)
                expect_same_value(a, a.values[va.payload.range.begin + k], b, b.values[vb.payload.range.begin + k],
                                  where + "[" + std::to_string(k) + "]");
            break;
        default: break;
    }
    EXPECT_EQ(a.str(va.type), b.str(vb.type)) << where;
}

}  // namespace mimic::testing
