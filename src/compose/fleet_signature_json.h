// A signature as JSON, written and read back exactly (numbers in their
// shortest round-trip form), so a signature computed in one shard of a
// Slurm array clusters exactly as if it had been computed in one run.
//
//   {"format": "chakra", "schema": "0.0.4", "time_source": "estimated",
//    "ops": 120, "collectives": 3,
//    "time_us": {"gemm": 10.5, ..., "communication": 2.0},
//    "flops": {...}, "bytes": {...},
//    "gemm_flops_log2_hist": [16 counts], "tensor_bytes_log2_hist": [16 counts]}
#pragma once

#include <simdjson.h>

#include <string>

#include "compose/fleet_signature.h"
#include "support/json_writer.h"

namespace mimic::fleet {

void write_signature(JsonWriter& w, const Signature& s);

// Throws mimic::Error naming `file` and the field that is missing or wrong.
Signature read_signature(simdjson::dom::element e, const std::string& file);

}  // namespace mimic::fleet
