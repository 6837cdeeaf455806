#pragma once
// One progress line per second on stdout while a side measures, for sbctl watch's live view
// (docs/reports.md): cumulative counters per queue since the measurement started,
//   {"event":"progress","role":"server","unit":"queue","t_ms":3000,
//    "streams":[{"id":0,"tx_bytes":0,"rx_bytes":1250000000,"drops":0}]}
// A stream is one queue of the engine (a socket pair, a DPDK queue, a queue pair); sbctl names
// it by the bench's transport.
#include <cstdint>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "engine/counters.hpp"
#include "sys/clock.hpp"

namespace spiral {

// The line for these counters: a receiving side reports rx_bytes, a sending side tx_bytes.
std::string progress_line(bool receiving, const std::string& unit, int64_t t_ms, const std::vector<QueueCounters>& counters);

class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool receiving, std::string unit, Millis every = Millis(1000))
      : out_(out), receiving_(receiving), unit_(std::move(unit)), every_(every) {}

  // The measured window starts: lines follow every `every` from now.
  void begin(Clock::time_point now) { start_ = now, last_ = now; }
  // A line is due (the window started and `every` passed since the last one).
  bool due(Clock::time_point now) const { return start_ && now - *last_ >= every_; }
  // Prints (and flushes) the line for these counters.
  void print(Clock::time_point now, const std::vector<QueueCounters>& counters);

 private:
  std::ostream& out_;
  bool receiving_;
  std::string unit_;
  Millis every_;
  std::optional<Clock::time_point> start_, last_;
};

}  // namespace spiral
