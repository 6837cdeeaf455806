#include "transports/roce/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace spiral::roce {

namespace {
constexpr unsigned kSubBits = 10;                  // exact below 2^10 ns
constexpr uint64_t kExact = uint64_t{1} << kSubBits;
constexpr uint64_t kHalf = kExact / 2;             // buckets per power of two above
constexpr size_t kBuckets = kExact + (64 - kSubBits) * kHalf;
}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

size_t LatencyHistogram::bucket_of(uint64_t ns) {
  if (ns < kExact) return static_cast<size_t>(ns);
  const unsigned shift = static_cast<unsigned>(std::bit_width(ns)) - kSubBits;  // >= 1
  const uint64_t top = ns >> shift;                                             // kHalf..kExact-1
  return static_cast<size_t>(kExact + (shift - 1) * kHalf + (top - kHalf));
}

uint64_t LatencyHistogram::bucket_low(size_t bucket) {
  if (bucket < kExact) return bucket;
  const size_t above = bucket - kExact;
  const unsigned shift = static_cast<unsigned>(above / kHalf) + 1;
  return (kHalf + above % kHalf) << shift;
}

uint64_t LatencyHistogram::bucket_width(size_t bucket) {
  return bucket < kExact ? 1 : uint64_t{1} << ((bucket - kExact) / kHalf + 1);
}

void LatencyHistogram::add(int64_t ns) {
  if (ns < 0) ns = 0;
  ++counts_[bucket_of(static_cast<uint64_t>(ns))];
  if (count_ == 0 || ns < min_) min_ = ns;
  if (count_ == 0 || ns > max_) max_ = ns;
  ++count_;
}

int64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * double(count_))));
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      const uint64_t middle = bucket_low(b) + bucket_width(b) / 2;
      return std::clamp(static_cast<int64_t>(middle), min_, max_);
    }
  }
  return max_;
}

LatencySummary LatencyHistogram::summary(int64_t divisor) const {
  LatencySummary s;
  s.samples = count_;
  if (count_ == 0) return s;
  s.min_ns = min_ / divisor;
  s.p50_ns = percentile(50) / divisor;
  s.p99_ns = percentile(99) / divisor;
  s.max_ns = max_ / divisor;
  return s;
}

}  // namespace spiral::roce
