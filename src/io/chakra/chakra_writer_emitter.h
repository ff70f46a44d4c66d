// Encodes Chakra Node messages from Trace data, one after another, straight
// into a wire buffer (chakra_wire_encoder.h) that goes to the file in large
// writes: the writer's hot path, with no protobuf objects. Which nodes and
// which fields is chakra_writer.cpp's business; here is how each field is
// spelled on the wire.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/chakra/chakra_attrs.h"
#include "io/chakra/chakra_comm.h"
#include "io/chakra/chakra_values.h"
#include "io/chakra/chakra_wire_encoder.h"
#include "io/chakra/chakra_writer.h"
#include "io/chakra/chakra_writer_file.h"
#include "support/grow_buffer.h"
#include "trace/trace.h"

namespace mimic {

// One AttributeProto, its fields in protobuf's order: name (left out when
// empty, as proto3 does), then the value. `attr_field` is where the
// attribute sits in its parent (Node 10, GlobalMetadata 2).
void chakra_varint_attr(ChakraWireEncoder& out, int attr_field, std::string_view name, int value_field, uint64_t v);
void chakra_string_attr(ChakraWireEncoder& out, int attr_field, std::string_view name, std::string_view v);
void chakra_value_attr(ChakraWireEncoder& out, ChakraAttrWriter& writer, int attr_field, std::string_view name,
                       const Value& v);

// A node's fields must come in protobuf's order: begin() (id, name, type),
// deps() for ctrl_deps then data_deps, times(), inputs_outputs(), then the
// attributes, then end().
class ChakraNodeEmitter {
public:
    ChakraNodeEmitter(const Trace& trace, ChakraOutputFile& file);

    // The buffer, for messages other than nodes (the metadata).
    ChakraWireEncoder& out() { return out_; }

    void begin(uint64_t id, std::string_view name, ChakraNodeType type, ChakraWriteStats& stats);
    // Node field `field` (ctrl_deps or data_deps) from `count` ids, dep(k) the k-th.
    template <typename DepAt>
    void deps(int field, size_t count, DepAt&& dep) {
        out_.packed_varints(field, count, dep);
    }
    void times(uint64_t start_us, uint64_t duration_us);
    void inputs_outputs(const Node& n);

    void attr_int64(std::string_view name, int64_t v);
    void attr_int32(std::string_view name, int64_t v);
    void attr_uint64(std::string_view name, uint64_t v);
    void attr_bool(std::string_view name, bool v);
    void attr_string(std::string_view name, std::string_view v);
    // The ET fields Chakra's converter copies, with its types.
    void pytorch_fields(const Node& n);
    // The node's other attributes; `skip_reserved` leaves out those mimic sets.
    void other_attrs(const Node& n, bool skip_reserved);
    void comm(const CommInfo& c, ChakraNodeType type, int64_t rank);

    // Ends the node; throws mimic::Error for a node over Chakra's 1 GiB
    // message limit or when a write to the file fails.
    void end();
    // Hands what is encoded to the file.
    void flush();

private:
    bool is_reserved(StrId name) const;
    void side(ValueRange values, StrId raw_name, const Node& n, int field);
    void io_info(int field, std::string_view values, std::string_view shapes, std::string_view types);

    const Trace& trace_;
    ChakraOutputFile& file_;
    ChakraWireEncoder out_;
    ChakraWireEncoder::Mark record_{};
    uint64_t id_ = 0;
    ChakraAttrWriter attrs_;
    ChakraIoEncoder io_;
    GrowBuffer values_, shapes_, types_;  // IOInfo texts, reused from node to node
    StrId raw_inputs_, raw_outputs_;
    std::vector<StrId> reserved_;
};

}  // namespace mimic
