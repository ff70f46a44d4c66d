// Where reports go: a file, or stdout when the path is "-".
#pragma once

#include <string>
#include <string_view>

namespace mimic {

// Writes `text` to `path` ("-" = stdout); throws mimic::Error naming the path.
void write_output(const std::string& path, std::string_view text);

}  // namespace mimic
