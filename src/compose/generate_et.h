// `mimic generate ... --format et`: PyTorch execution traces (schema 1.0.1,
// as torch 1.13 writes them) of a small model, with real ATen ops and their
// schemas, that `mimic replay` runs on CPU on one rank or several.
#pragma once

#include <string>

#include "compose/generate_options.h"

namespace mimic::compose {

struct EtGenerateResult {
    std::string table, json;
};

EtGenerateResult write_generated_et(const GenerateOptions& o, const std::string& prefix);

}  // namespace mimic::compose
