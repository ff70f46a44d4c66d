#include "support/output.h"

#include <cstdio>
#include <fstream>

#include "support/error.h"

namespace mimic {

void write_output(const std::string& path, std::string_view text) {
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) fail({path, -1, -1, ""}, "cannot write the output file");
}

}  // namespace mimic
