// A zero-copy decoder for Chakra Node messages, the reader's hot path.
// protobuf's generated parser copies every string into the message and
// checks it for UTF-8; for traces of millions of nodes whose bytes are mostly
// IOInfo text, reading views into the input instead (checking the UTF-8 of
// the string fields in place) is several times faster. It follows the
// protobuf wire format (unknown fields skipped, repeated scalars packed or
// not, the last of a oneof wins), refuses what protobuf refuses (field 0,
// overlong tags, strings that are not UTF-8), and reports malformed input
// with its offset inside the message. Tests and the fuzzer check it against
// protobuf's own parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mimic {

// One AttributeProto, undecoded beyond its field: `field` is the oneof field
// number (3..32; 0 when no value is set) and its payload is either `bits`
// (varint, fixed32, fixed64: raw) or `bytes` (string, bytes, or a *List
// message).
struct ChakraAttrView {
    std::string_view name;
    int field = 0;
    int wire_type = 0;
    uint64_t bits = 0;
    std::string_view bytes;
    // Further payloads of the same *List field: protobuf merges repeated
    // occurrences of a message field, so their values follow those of `bytes`.
    std::vector<std::string_view> merged;
};

struct ChakraIoView {
    bool present = false;
    std::string_view values, shapes, types;
};

struct ChakraNodeView {
    uint64_t id = 0;
    std::string_view name;
    int32_t type = 0;
    std::vector<uint64_t> ctrl_deps;
    std::vector<uint64_t> data_deps;
    uint64_t start_time_micros = 0;
    uint64_t duration_micros = 0;
    ChakraIoView inputs, outputs;
    std::vector<ChakraAttrView> attrs;
    bool unknown_fields = false;  // fields this schema does not have were skipped
};

struct ChakraMetadataView {
    std::string_view version;
    std::vector<ChakraAttrView> attrs;
    bool unknown_fields = false;  // fields this schema does not have were skipped
};

// Why a message did not decode. protobuf refuses a string field that is not
// valid UTF-8 (bytes fields may hold anything), and so does this decoder, so
// that no trace it reads is one protobuf's parser, and Chakra's tools, refuse;
// such an error also names the field and the byte where the bad text starts.
struct ChakraWireError {
    std::string what;    // with the byte inside the message where it went wrong
    std::string field;   // for invalid UTF-8: "name", "inputs.values", "attr[2].string_val", ...
    int64_t offset = -1; // for invalid UTF-8: its first bad byte, from the start of the message
};

bool decode_chakra_metadata(std::string_view message, ChakraMetadataView& out, ChakraWireError& error);

// True when `head` (the first bytes of a file, gzip undone) reads as a
// Chakra stream: a length prefix and a GlobalMetadata of known fields only,
// then, if the head holds it, a Node of known fields only. Strict on
// purpose: a metadata message 123 bytes long starts with '{', and JSON text
// must not pass for protobuf (nor the reverse).
bool looks_like_chakra(std::string_view head);

// Who checks that the IOInfo texts of a node (inputs/outputs values, shapes,
// types) are UTF-8. ByCaller: the decoder leaves the texts that end up in
// the view to check_chakra_io_text, so that a caller who has met the same
// texts before (Chakra's feeder sample repeats two thirds of its sides) need
// not read them twice; the caller must then check every text it did not meet.
enum class IoTextCheck { InDecoder, ByCaller };

// Decodes `message` into `out` (whose vectors are reused). Returns false and
// sets `error` (with the offset inside the message) on malformed input.
bool decode_chakra_node(std::string_view message, ChakraNodeView& out, ChakraWireError& error,
                        IoTextCheck io_text = IoTextCheck::InDecoder);

// The UTF-8 check of one side's three texts (views into `message`), as the
// decoder makes it: on failure `error` names the field ("inputs.values")
// and the bad byte's offset in the message. `side`: "inputs" or "outputs".
bool check_chakra_io_text(std::string_view message, const ChakraIoView& io, const char* side, ChakraWireError& error);

// The values of a *List attribute payload (field 1, packed or not), appended
// to `out`: raw bits of each scalar, whose wire type is `wire_type` (0
// varint, 1 fixed64, 5 fixed32), or views of each string. Return false on
// malformed input.
bool decode_list_scalars(std::string_view list, int wire_type, std::vector<uint64_t>& out);
bool decode_list_bytes(std::string_view list, std::vector<std::string_view>& out);
// The same over every payload of a list attribute (`bytes`, then `merged`).
bool decode_attr_list_scalars(const ChakraAttrView& a, int wire_type, std::vector<uint64_t>& out);
bool decode_attr_list_bytes(const ChakraAttrView& a, std::vector<std::string_view>& out);

}  // namespace mimic
