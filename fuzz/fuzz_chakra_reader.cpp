// libFuzzer target for the Chakra .et reader: varint framing, gzip, the
// zero-copy wire decoder, attrs, IOInfo literals, dependency checks. An input
// must either read into a Trace that keeps its invariants or fail with
// mimic::Error.
//
// The reader decodes the protobuf wire format itself, so each message is
// also parsed by protobuf's generated code: where both accept a message they
// must agree on every field (a disagreement is a silently wrong trace), and
// the decoder must not accept a message protobuf refuses (say, a string that
// is not UTF-8), or mimic would read and write traces Chakra's tools cannot.
// The hand decoder may refuse more than protobuf does (it knows no groups);
// that is a clear error, not a wrong answer.
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "fuzz_input_file.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "io/chakra/chakra_wire.h"
#include "support/error.h"
#include "trace_checks.h"

namespace {

using ChakraProtoMsg::AttributeProto;
using mimic::fuzz::broken;

int element_wire_type(int list_field) {
    switch (list_field) {
        case AttributeProto::kDoubleList:
        case AttributeProto::kFixed64List:
        case AttributeProto::kSfixed64List: return 1;
        case AttributeProto::kFloatList:
        case AttributeProto::kFixed32List:
        case AttributeProto::kSfixed32List: return 5;
        default: return 0;
    }
}

// How many values protobuf found in a *List oneof member.
int proto_list_size(const AttributeProto& a) {
    switch (a.value_case()) {
        case AttributeProto::kDoubleList: return a.double_list().values_size();
        case AttributeProto::kFloatList: return a.float_list().values_size();
        case AttributeProto::kInt32List: return a.int32_list().values_size();
        case AttributeProto::kInt64List: return a.int64_list().values_size();
        case AttributeProto::kUint32List: return a.uint32_list().values_size();
        case AttributeProto::kUint64List: return a.uint64_list().values_size();
        case AttributeProto::kSint32List: return a.sint32_list().values_size();
        case AttributeProto::kSint64List: return a.sint64_list().values_size();
        case AttributeProto::kFixed32List: return a.fixed32_list().values_size();
        case AttributeProto::kFixed64List: return a.fixed64_list().values_size();
        case AttributeProto::kSfixed32List: return a.sfixed32_list().values_size();
        case AttributeProto::kSfixed64List: return a.sfixed64_list().values_size();
        case AttributeProto::kBoolList: return a.bool_list().values_size();
        case AttributeProto::kStringList: return a.string_list().values_size();
        case AttributeProto::kBytesList: return a.bytes_list().values_size();
        default: return -1;
    }
}

uint64_t bits_of(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// Whether the hand decoder's view of one attribute equals protobuf's.
void compare_attr(const mimic::ChakraAttrView& w, const AttributeProto& p) {
    if (w.name != p.name()) broken("attr name differs from protobuf's", 0);
    if (w.field != static_cast<int>(p.value_case())) broken("attr oneof field differs from protobuf's", w.field);
    const uint64_t b = w.bits;
    bool same = true;
    switch (p.value_case()) {
        case AttributeProto::kDoubleVal: same = b == bits_of(p.double_val()); break;
        case AttributeProto::kFloatVal: same = static_cast<uint32_t>(b) == bits_of(p.float_val()); break;
        case AttributeProto::kInt32Val: same = static_cast<int32_t>(b) == p.int32_val(); break;
        case AttributeProto::kInt64Val: same = static_cast<int64_t>(b) == p.int64_val(); break;
        case AttributeProto::kUint32Val: same = static_cast<uint32_t>(b) == p.uint32_val(); break;
        case AttributeProto::kUint64Val: same = b == p.uint64_val(); break;
        case AttributeProto::kSint32Val:
            same = static_cast<int32_t>((static_cast<uint32_t>(b) >> 1) ^ -(static_cast<uint32_t>(b) & 1)) == p.sint32_val();
            break;
        case AttributeProto::kSint64Val: same = static_cast<int64_t>((b >> 1) ^ -(b & 1)) == p.sint64_val(); break;
        case AttributeProto::kFixed32Val: same = static_cast<uint32_t>(b) == p.fixed32_val(); break;
        case AttributeProto::kFixed64Val: same = b == p.fixed64_val(); break;
        case AttributeProto::kSfixed32Val: same = static_cast<int32_t>(b) == p.sfixed32_val(); break;
        case AttributeProto::kSfixed64Val: same = static_cast<int64_t>(b) == p.sfixed64_val(); break;
        case AttributeProto::kBoolVal: same = (b != 0) == p.bool_val(); break;
        case AttributeProto::kStringVal: same = w.bytes == p.string_val(); break;
        case AttributeProto::kBytesVal: same = w.bytes == p.bytes_val(); break;
        case AttributeProto::VALUE_NOT_SET: break;
        default: {
            // A list: as many values as protobuf found (when the decoder accepts the payload).
            const int field = w.field;
            size_t n = 0;
            bool ok;
            if (field == AttributeProto::kStringList || field == AttributeProto::kBytesList) {
                std::vector<std::string_view> s;
                ok = mimic::decode_attr_list_bytes(w, s);
                n = s.size();
                if (ok && field == AttributeProto::kStringList)
                    for (size_t i = 0; i < s.size() && i < size_t(p.string_list().values_size()); ++i)
                        if (s[i] != p.string_list().values(static_cast<int>(i))) broken("string list value differs", i);
            } else {
                std::vector<uint64_t> v;
                ok = mimic::decode_attr_list_scalars(w, element_wire_type(field), v);
                n = v.size();
            }
            if (ok && n != static_cast<size_t>(proto_list_size(p))) {
                std::fprintf(stderr, "list field %d: decoder %zu values, protobuf %d\n", field, n, proto_list_size(p));
                broken("list length differs from protobuf's", field);
            }
        }
    }
    if (!same) broken("attr value differs from protobuf's", w.field);
}

void compare_io(const mimic::ChakraIoView& w, bool has, const ChakraProtoMsg::IOInfo& p) {
    if (w.present != has) broken("IOInfo presence differs from protobuf's", 0);
    if (has && (w.values != p.values() || w.shapes != p.shapes() || w.types != p.types()))
        broken("IOInfo text differs from protobuf's", 0);
}

// Whether the reader takes every *List payload of the attrs, which the
// decoder leaves to it and protobuf parses with the message.
bool lists_decode(const std::vector<mimic::ChakraAttrView>& attrs) {
    for (const mimic::ChakraAttrView& a : attrs) {
        if (a.field < AttributeProto::kDoubleList || a.field % 2 != 0) continue;
        std::vector<std::string_view> s;
        std::vector<uint64_t> v;
        const bool ok = a.field == AttributeProto::kStringList || a.field == AttributeProto::kBytesList
                            ? mimic::decode_attr_list_bytes(a, s)
                            : mimic::decode_attr_list_scalars(a, element_wire_type(a.field), v);
        if (!ok) return false;
    }
    return true;
}

// Whether the two parsers agree on accepting a message; true when both accept.
bool both_accept(bool protobuf_ok, bool decoder_ok, const mimic::ChakraWireError& error) {
    if (decoder_ok && !protobuf_ok) broken("the decoder accepts a message protobuf refuses", 0);
    if (!decoder_ok && protobuf_ok && error.offset >= 0) broken("the decoder refuses a string protobuf reads", 0);
    return protobuf_ok && decoder_ok;  // else the decoder is stricter: a clear error
}

void compare_node(std::string_view bytes) {
    ChakraProtoMsg::Node p;
    const bool protobuf_ok = p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    mimic::ChakraNodeView w;
    mimic::ChakraWireError error;
    const bool decoder_ok = mimic::decode_chakra_node(bytes, w, error) && lists_decode(w.attrs);
    // The reader's way: IOInfo texts left to check_chakra_io_text must make
    // the same decision as the decoder checking them itself.
    mimic::ChakraNodeView deferred;
    mimic::ChakraWireError deferred_error;
    const bool deferred_ok =
        mimic::decode_chakra_node(bytes, deferred, deferred_error, mimic::IoTextCheck::ByCaller) &&
        mimic::check_chakra_io_text(bytes, deferred.inputs, "inputs", deferred_error) &&
        mimic::check_chakra_io_text(bytes, deferred.outputs, "outputs", deferred_error) && lists_decode(deferred.attrs);
    if (deferred_ok != decoder_ok) broken("checking IOInfo text by the caller decides otherwise", 0);
    if (!both_accept(protobuf_ok, decoder_ok, error)) return;
    if (w.id != p.id() || w.name != p.name() || w.type != static_cast<int32_t>(p.type()) ||
        w.start_time_micros != p.start_time_micros() || w.duration_micros != p.duration_micros())
        broken("node scalar field differs from protobuf's", w.id);
    if (w.ctrl_deps.size() != static_cast<size_t>(p.ctrl_deps_size()) ||
        !std::equal(w.ctrl_deps.begin(), w.ctrl_deps.end(), p.ctrl_deps().begin()))
        broken("ctrl_deps differ from protobuf's", w.id);
    if (w.data_deps.size() != static_cast<size_t>(p.data_deps_size()) ||
        !std::equal(w.data_deps.begin(), w.data_deps.end(), p.data_deps().begin()))
        broken("data_deps differ from protobuf's", w.id);
    compare_io(w.inputs, p.has_inputs(), p.inputs());
    compare_io(w.outputs, p.has_outputs(), p.outputs());
    if (w.attrs.size() != static_cast<size_t>(p.attr_size())) broken("attr count differs from protobuf's", w.id);
    for (size_t i = 0; i < w.attrs.size(); ++i) compare_attr(w.attrs[i], p.attr(static_cast<int>(i)));
}

void compare_metadata(std::string_view bytes) {
    ChakraProtoMsg::GlobalMetadata p;
    const bool protobuf_ok = p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    mimic::ChakraMetadataView w;
    mimic::ChakraWireError error;
    const bool decoder_ok = mimic::decode_chakra_metadata(bytes, w, error) && lists_decode(w.attrs);
    if (!both_accept(protobuf_ok, decoder_ok, error)) return;
    if (w.version != p.version()) broken("metadata version differs from protobuf's", 0);
    if (w.attrs.size() != static_cast<size_t>(p.attr_size())) broken("metadata attr count differs from protobuf's", 0);
    for (size_t i = 0; i < w.attrs.size(); ++i) compare_attr(w.attrs[i], p.attr(static_cast<int>(i)));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("MIMIC_NO_PROGRESS", "1", 1);
    // protobuf logs every string field with invalid UTF-8; the comparison
    // below parses many such messages on purpose.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static mimic::fuzz::InputFile file;
    const std::string& path = file.write(data, size);
    mimic::ChakraReadOptions options;
    options.progress = false;
    try {
        mimic::Trace t = mimic::read_chakra(path, options);
        mimic::fuzz::check_trace(t);
    } catch (const mimic::Error& e) {
        if (std::string(e.what()).empty()) broken("empty error message", 0);
    }
    // Message by message, the hand decoder against protobuf.
    try {
        mimic::ChakraFrameReader frames(path);
        std::string_view bytes;
        uint64_t offset = 0;
        for (size_t index = 0; frames.next(bytes, offset); ++index) {
            if (index == 0) compare_metadata(bytes);
            else compare_node(bytes);
        }
    } catch (const mimic::Error&) {
        // framing errors were the reader's to report above
    }
    return 0;
}
