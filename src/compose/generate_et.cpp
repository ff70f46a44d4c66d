#include "compose/generate_et.h"

#include "support/error.h"

namespace mimic::compose {

EtGenerateResult write_generated_et(const GenerateOptions&, const std::string&) {
    fail({"--format", -1, -1, ""}, "et is not written yet");
}

}  // namespace mimic::compose
