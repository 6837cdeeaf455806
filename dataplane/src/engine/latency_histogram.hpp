#pragma once
// Round-trip times of a ping-pong run, kept in a log-linear histogram allocated once, so the
// timed loop never allocates however long it runs. Exact below 1024 ns; above, buckets are
// 1/512 of their value wide and a percentile is reported at its bucket's middle (error under
// 0.1 %). Minimum and maximum are exact.
#include <cstdint>
#include <vector>

#include "engine/completion_counters.hpp"

namespace spiral::roce {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void add(int64_t ns);
  uint64_t count() const { return count_; }
  // Nearest-rank percentile (0 < p <= 100) in ns; 0 when empty.
  int64_t percentile(double p) const;
  // min/p50/p99/max, each divided by `divisor` (2: one-way from a round trip).
  LatencySummary summary(int64_t divisor) const;

  // Bucket arithmetic, public for the tests.
  static size_t bucket_of(uint64_t ns);
  static uint64_t bucket_low(size_t bucket);
  static uint64_t bucket_width(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  int64_t min_ = 0, max_ = 0;
};

}  // namespace spiral::roce
