// What a first touch of a fresh 4 KiB page costs on this machine: a minor
// page fault and the kernel zeroing the page. calibrate stores it for
// predict's fault model; replay needs it where the original's untraced
// iterations faulted more or less than the profiled one its op durations
// come from.
#pragma once

namespace mimic {

// 64 MiB mapped without huge pages and written one byte per page, the
// median of three rounds, in microseconds per page (0 if mmap fails).
// About 60 ms.
double measure_page_fault_us();

}  // namespace mimic
