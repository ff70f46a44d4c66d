// Stands in for libkineto's ActivityType.h, which torch's profiler headers
// include (torch/csrc/profiler/kineto_shim.h) but Debian's libtorch-dev,
// built without Kineto, does not ship. Those headers only name the type
// (a field of the Kineto event's extra fields, the return of a function
// mimic never calls); no enumerator is used. The underlying type is int, as
// libkineto's enum class has, so the profiler's structures keep their
// layout. Only torch_profiler_pass.cpp sees this directory.
#pragma once

namespace libkineto {
enum class ActivityType : int {};
}  // namespace libkineto
