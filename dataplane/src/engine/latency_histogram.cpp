#include "engine/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace spiral {

namespace {
constexpr unsigned kSubBits = 10;                  // exact below 2^10 ns
constexpr uint64_t kExact = uint64_t{1} << kSubBits;
constexpr uint64_t kHalf = kExact / 2;             // buckets per power of two above
constexpr size_t kBuckets = kExact + (64 - kSubBits) * kHalf;
// The reported histogram: one bucket below 16 ns, then 8 per power of two (bounds all even, so
// halving them for one-way latency is exact).
// Its bounds are bounds of the fine layout too, so each fine bucket falls in one reported bucket.
constexpr unsigned kReportSubBits = 4;
constexpr uint64_t kReportExact = uint64_t{1} << kReportSubBits;
constexpr uint64_t kReportHalf = kReportExact / 2;
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

size_t LatencyHistogram::report_bucket_of(uint64_t ns) {
  if (ns < kReportExact) return 0;  // one bucket below 16 ns: no clock here resolves them
  const unsigned shift = static_cast<unsigned>(std::bit_width(ns)) - kReportSubBits;
  const uint64_t top = ns >> shift;
  return static_cast<size_t>(1 + (shift - 1) * kReportHalf + (top - kReportHalf));
}

uint64_t LatencyHistogram::report_bucket_low(size_t bucket) {
  if (bucket == 0) return 0;
  const size_t above = bucket - 1;
  const unsigned shift = static_cast<unsigned>(above / kReportHalf) + 1;
  return (kReportHalf + above % kReportHalf) << shift;
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
  // In thousandths of a percent and integers: 99.9 % of 1000 samples is rank 999 exactly, where
  // ceil(0.999 * 1000) in doubles can come out as 1000.
  const auto milli = static_cast<uint64_t>(std::llround(std::clamp(p, 0.0, 100.0) * 1000.0));
  const uint64_t rank = std::max<uint64_t>(1, (milli * count_ + 99'999) / 100'000);
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
  s.p999_ns = percentile(99.9) / divisor;
  s.max_ns = max_ / divisor;
  for (size_t b = 0; b < counts_.size(); ++b) {
    if (counts_[b] == 0) continue;
    const size_t r = report_bucket_of(bucket_low(b));
    const auto low = static_cast<int64_t>(report_bucket_low(r)) / divisor;
    if (!s.histogram.empty() && s.histogram.back().low_ns == low) {
      s.histogram.back().count += counts_[b];
    } else {
      const auto high = static_cast<int64_t>(report_bucket_low(r + 1)) / divisor;
      s.histogram.push_back({low, high, counts_[b]});
    }
  }
  return s;
}

}  // namespace spiral
