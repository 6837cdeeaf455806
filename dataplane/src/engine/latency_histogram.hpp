#pragma once
// Round-trip times of a ping-pong run (every kind with a latency mode: roce, tcp, udp), kept in a
// log-linear histogram allocated once, so the timed loop never allocates however long it runs.
// Exact below 1024 ns; above, buckets are 1/512 of their value wide and a percentile is reported
// at its bucket's middle (error under 0.1 %). Minimum and maximum are exact. The reported
// histogram (LatencySummary::histogram) folds these buckets into 8 per power of two.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spiral {

// One bucket of the reported histogram: [low_ns, high_ns) held count samples.
struct LatencyBucket {
  int64_t low_ns = 0, high_ns = 0;
  uint64_t count = 0;
  bool operator==(const LatencyBucket&) const = default;
};

// Ping-pong latency in nanoseconds: half the round trip where a reply mirrors the request (send
// and write on roce, tcp and udp: perftest's and sockperf's convention), the whole operation for
// an RDMA read (a round trip by nature). Percentiles are nearest-rank.
struct LatencySummary {
  uint64_t samples = 0;
  int64_t min_ns = 0, p50_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
  std::vector<LatencyBucket> histogram;  // non-empty buckets, ascending, counts summing to samples
};

class LatencyHistogram {
 public:
  LatencyHistogram();

  void add(int64_t ns);
  uint64_t count() const { return count_; }
  // Nearest-rank percentile (0 < p <= 100) in ns; 0 when empty.
  int64_t percentile(double p) const;
  // min/p50/p99/p99.9/max and the reported histogram, each value divided by `divisor`
  // (2: one-way from a round trip).
  LatencySummary summary(int64_t divisor) const;

  // Bucket arithmetic, public for the tests.
  static size_t bucket_of(uint64_t ns);
  static uint64_t bucket_low(size_t bucket);
  static uint64_t bucket_width(size_t bucket);
  // The reported histogram's bucket of a value: [0, 16) ns, then 8 per power of two.
  static size_t report_bucket_of(uint64_t ns);
  static uint64_t report_bucket_low(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  int64_t min_ = 0, max_ = 0;
};

}  // namespace spiral
