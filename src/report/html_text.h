// Text made safe for HTML and SVG: everything a trace or result file carries
// (op names, labels, paths) goes through here before it reaches the page.
#pragma once

#include <string>
#include <string_view>

namespace mimic::report {

std::string escape_html(std::string_view text);

}  // namespace mimic::report
