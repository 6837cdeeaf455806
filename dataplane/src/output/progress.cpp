#include "output/progress.hpp"

#include <nlohmann/json.hpp>

namespace spiral {

std::string progress_line(bool receiving, const std::string& unit, int64_t t_ms, const std::vector<QueueCounters>& counters) {
  nlohmann::json streams = nlohmann::json::array();
  for (size_t i = 0; i < counters.size(); ++i) {
    const QueueCounters& q = counters[i];
    const uint64_t bytes = q.measured().bytes;
    streams.push_back({{"id", i}, {"tx_bytes", receiving ? 0 : bytes}, {"rx_bytes", receiving ? bytes : 0},
                       {"drops", receiving ? q.kernel_drops : 0}});
  }
  nlohmann::json line = {{"event", "progress"}, {"role", receiving ? "server" : "client"}, {"unit", unit},
                         {"t_ms", t_ms}, {"streams", streams}};
  return line.dump();
}

void ProgressLine::print(Clock::time_point now, const std::vector<QueueCounters>& counters) {
  last_ = now;
  const int64_t t_ms = start_ ? millis_between(*start_, now) : 0;
  out_ << progress_line(receiving_, unit_, t_ms, counters) << std::endl;  // flushed: a pod log shows it at once
}

}  // namespace spiral
