// The Chakra reader's check of dependencies: how many name a node that is
// not in the trace, or the node itself. Warnings, not errors (see the .cpp).
#pragma once

#include <cstddef>

#include "trace/trace.h"

namespace mimic {

// Adds a warning to `trace` for dependencies on absent nodes (with the
// first example) and one for `self_deps` dependencies of a node on itself.
void check_chakra_dependencies(Trace& trace, size_t self_deps);

}  // namespace mimic
