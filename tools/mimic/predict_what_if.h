// mimic predict --what-if SETTING=V1,V2,...: the same prediction at several
// values of one setting, ranked fastest first. Each value is predicted by the
// ordinary path, which writes its JSON report; the driver reads back what it
// ranks from that report, so a what-if row is exactly what `mimic predict`
// prints for that value alone.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mimic::cli {

struct WhatIf {
    std::string setting;              // "batch-scale", "threads", "ranks" or "device"
    std::vector<std::string> values;  // as given; numbers checked to be of the setting's kind
};

// Parses "SETTING=V1,V2,..."; throws mimic::Error naming --what-if and the
// part that is wrong (unknown setting, empty or repeated value, a value the
// setting cannot take).
WhatIf parse_what_if(const std::string& text);

// Predicts one value: writes the report of `mimic predict` at that value as
// JSON to `json_path` and prints nothing on stdout. Throws mimic::Error when
// that value cannot be predicted (it is then reported in its row).
using PredictOneValue = std::function<void(const std::string& value, const std::string& json_path)>;

// Runs every value, prints the ranked table (and writes the ranking as JSON
// to `json_out` when given; "-": JSON alone on stdout). Returns the exit code:
// 1 when a value could not be predicted, else 0.
int run_what_if(const WhatIf& what_if, const PredictOneValue& predict, const std::string& json_out);

}  // namespace mimic::cli
