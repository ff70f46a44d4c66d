// Values of operator inputs, outputs and attributes, stored flat: a list's
// elements are a contiguous run of Trace::values, a tensor's metadata sits in
// Trace::tensors and its dims in Trace::dims.
#pragma once

#include <cstdint>

#include "support/interner.h"

namespace mimic {

enum class ValueKind : uint8_t {
    None,       // "None", "<None>"
    Int,        // Int, uint64/int64 attrs
    Double,
    Bool,
    String,
    Device,     // value is a string such as "cuda:0"
    Tensor,     // payload.index into Trace::tensors
    List,       // GenericList[...], TensorList, Tuple[...]; payload.range into Trace::values
    Object,     // "<Object>": a script object (ProcessGroup, ReduceOp...) with no value recorded
    Generator,  // "<Generator>"
    Unknown,    // a type this version of mimic does not know; text kept in payload.str
};

struct ValueRange {
    uint32_t begin = 0;
    uint32_t count = 0;
};

struct Value {
    ValueKind kind = ValueKind::None;
    StrId type;  // the type string as recorded ("Tensor(float)", "GenericList[Int,Int]", "uint64"...)
    union Payload {
        int64_t i;
        double d;
        bool b;
        StrId str;
        uint32_t index;
        ValueRange range;
        Payload() : i(0) {}
    } payload;
};
static_assert(sizeof(Value) == 16, "Value is kept small: traces hold millions");

// Metadata of one tensor use. Ids repeat over time: a tensor is identified by
// (tensor_id, storage_id) together with its shape, never by tensor_id alone.
struct TensorMeta {
    uint64_t tensor_id = 0;
    uint64_t storage_id = 0;
    uint64_t offset = 0;  // in elements
    uint64_t numel = 0;
    uint32_t itemsize = 0;
    StrId device;  // "cuda:0", "cpu", "" when the trace has a 5-tuple
    StrId dtype;   // "float", "c10::BFloat16", "long int", "nullptr (uninitialized)"
    uint32_t dims_begin = 0;
    uint16_t rank = 0;
    bool has_strides = false;  // strides follow the dims in Trace::dims
    bool undefined = false;    // an optional tensor that was not given
};

}  // namespace mimic
