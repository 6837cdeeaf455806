#include "metrics/cpu_stat.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace spiral {

CpuSample parse_proc_stat(std::istream& in) {
  CpuSample sample;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int core = -1;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> core >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) continue;
    fields >> steal;  // absent on very old kernels
    CpuTimes t;
    t.busy = user + nice + system + irq + softirq + steal;
    t.total = t.busy + idle + iowait;
    sample[core] = t;
  }
  return sample;
}

CpuSample read_proc_stat() {
  std::ifstream in("/proc/stat");
  return parse_proc_stat(in);
}

int64_t busy_mpct(const CpuSample& before, const CpuSample& after, int core) {
  auto a = before.find(core), b = after.find(core);
  if (a == before.end() || b == after.end()) return -1;
  if (b->second.total <= a->second.total || b->second.busy < a->second.busy) return -1;
  const uint64_t busy = b->second.busy - a->second.busy;
  const uint64_t total = b->second.total - a->second.total;
  return static_cast<int64_t>((busy * 100000 + total / 2) / total);
}

}  // namespace spiral
