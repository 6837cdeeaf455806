#pragma once
// CPU busy share per core from two /proc/stat samples, as DAQIRI measures it.
#include <cstdint>
#include <istream>
#include <map>

namespace spiral {

struct CpuTimes {
  uint64_t busy = 0;   // user + nice + system + irq + softirq + steal (guest is inside user)
  uint64_t total = 0;  // busy + idle + iowait
};
using CpuSample = std::map<int, CpuTimes>;  // by core number

CpuSample parse_proc_stat(std::istream& in);
CpuSample read_proc_stat();

// Busy share of `core` between two samples in milli-percent (100 % = 100000); -1 when unknown.
int64_t busy_mpct(const CpuSample& before, const CpuSample& after, int core);

}  // namespace spiral
