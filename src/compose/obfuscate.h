// `mimic obfuscate`: strips an execution trace of what reveals its owner
// while keeping what makes it a benchmark. Renamed, consistently through an
// AliasMap: record_function labels and module names, custom op names (and
// their schemas' argument names), custom autograd functions and optimizers, file paths and
// any unknown string attribute, process-group descriptions, TorchScript class
// types, string arguments of anything that is not a PyTorch operator. Kept:
// PyTorch's operators with their schemas and arguments, the labels PyTorch
// itself writes, every shape, dtype, stride, id and the graph.
#pragma once

#include <cstdint>
#include <regex>
#include <string>

#include "compose/alias_map.h"
#include "compose/et_document.h"

namespace mimic::compose {

struct ObfuscateOptions {
    // Names (of nodes) matching this stay as they are; empty keeps none beyond PyTorch's.
    std::string keep_regex;
};

struct ObfuscateStats {
    uint64_t nodes = 0;
    uint64_t renamed_names = 0;    // node names replaced by an alias
    uint64_t renamed_strings = 0;  // other strings (attributes, arguments, types, header fields)
    uint64_t rewritten_schemas = 0;  // custom ops' schemas, names and argument names replaced
};

// The top-level key an obfuscated trace carries, so a second pass can refuse it.
inline constexpr const char* kObfuscatedMarker = "mimic_obfuscated";

// Rewrites `doc` in place. Throws mimic::Error naming the file when it was
// obfuscated already or the keep regex is invalid.
ObfuscateStats obfuscate_trace(EtDocument& doc, AliasMap& map, const ObfuscateOptions& options = {});

}  // namespace mimic::compose

namespace mimic::compose {

// A Chrome-format profile (Kineto's, or `mimic record`'s profile.json) of an
// obfuscated ET, rewritten with the same map and rule: op and label event
// names as the ET's nodes (so the linker still pairs them), string arguments
// but PyTorch's (input types, concrete inputs of PyTorch's ops, collective
// names and dtypes), process and thread names, the trace name. Device kernel
// names stay: they name library kernels (cuDNN, cuBLAS, ATen's).
ObfuscateStats obfuscate_profile(JsonValue& profile, AliasMap& map, const ObfuscateOptions& options,
                                 const std::string& path);

// A recording's meta.json: paths (the user's script, the interpreter), the
// host name and process-group descriptions renamed; the rest is the
// recorder's own vocabulary and numbers.
ObfuscateStats obfuscate_meta(JsonValue& meta, AliasMap& map);

}  // namespace mimic::compose
