// The fault probe's C interface (fault_probe.cpp): the recorder calls it
// through ctypes in the recorded Python process (fault_probe.py); the
// replay runs it in its pass under torch's profiler, so that the replayed
// ops pay what the recorder's profiled calls paid inside each op.
#pragma once

#include <cstdint>

extern "C" {
int mimic_fault_probe_start();
int mimic_fault_probe_start_timing();
void mimic_fault_probe_nest(int enter);
int64_t mimic_fault_probe_stop(const char* path);
}
