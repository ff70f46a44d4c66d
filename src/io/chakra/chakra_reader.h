// Reads a Chakra execution trace (.et, plain or gzip: detected from the
// content) into a Trace: the GlobalMetadata into the header, each Node into a
// node with its Chakra type, dependencies, timing, inputs/outputs and attrs.
#pragma once

#include <string>

#include "trace/trace.h"

namespace mimic {

struct ChakraReadOptions {
    bool progress = true;  // progress bar on a terminal for long reads
};

// What the reader does with a Chakra node:
// - ctrl_deps all go to Node::deps and data_deps to Node::data_deps, both as
//   written (Chakra's ctrl_deps are scheduling dependencies, not a call
//   tree, so Node::parent stays 0); dependencies on absent nodes and on the
//   node itself are kept but counted in one warning each.
// - The PyTorch attributes Chakra's converter copies (rf_id, fw_parent,
//   seq_id, scope, tid, fw_tid, op_schema) fill the Node fields of the same
//   name; a node that has any of them is classified like an ET node, others
//   are NodeKind::Unknown. All other attributes go to Trace::attrs.
// - IOInfo texts (JSON or Python literal syntax) become values; a text that
//   parses as neither is kept raw in the attribute "chakra.raw_inputs" /
//   "chakra.raw_outputs" (a list of the values, shapes and types texts) so a
//   write reproduces it.
// - Trace::rank comes from a file name of the form PREFIX.<rank>.et[.gz].
// Throws mimic::Error naming the file and byte offset on a bad varint, a
// length past the end of the file, or a message that does not parse.
Trace read_chakra(const std::string& path, const ChakraReadOptions& options = {});

// Names of the attributes that keep unparseable IOInfo texts.
inline constexpr const char* kChakraRawInputs = "chakra.raw_inputs";
inline constexpr const char* kChakraRawOutputs = "chakra.raw_outputs";

}  // namespace mimic
