#include "transports/roce/latency_histogram.hpp"

#include <gtest/gtest.h>

#include <random>

namespace spiral::roce {
namespace {

TEST(LatencyHistogram, ExactBelowAMicrosecond) {
  LatencyHistogram h;
  for (int64_t v : {100, 200, 300, 400, 500}) h.add(v);
  EXPECT_EQ(h.percentile(50), 300);
  EXPECT_EQ(h.percentile(99), 500);
  EXPECT_EQ(h.percentile(20), 100);  // nearest rank: the first of five
  EXPECT_EQ(h.percentile(21), 200);
}

TEST(LatencyHistogram, BucketsTileTheRangeWithoutGaps) {
  uint64_t next = 0;
  for (size_t b = 0; b < 1024 + 40 * 512; ++b) {
    ASSERT_EQ(LatencyHistogram::bucket_low(b), next) << b;
    ASSERT_EQ(LatencyHistogram::bucket_of(next), b);
    ASSERT_EQ(LatencyHistogram::bucket_of(next + LatencyHistogram::bucket_width(b) - 1), b);
    next += LatencyHistogram::bucket_width(b);
  }
  EXPECT_LT(LatencyHistogram::bucket_of(~uint64_t{0}), 1024u + 54u * 512u);
}

TEST(LatencyHistogram, PercentilesWithinATenthOfAPercent) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10.0, 1.0);  // around 22 us, long tail
  std::vector<int64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    values.push_back(static_cast<int64_t>(dist(rng)));
    h.add(values.back());
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 99.0, 99.9}) {
    const auto exact = static_cast<double>(values[static_cast<size_t>(std::ceil(p / 100 * values.size())) - 1]);
    EXPECT_NEAR(static_cast<double>(h.percentile(p)), exact, exact * 0.001 + 1) << p;
  }
  const LatencySummary s = h.summary(1);
  EXPECT_EQ(s.samples, 100000u);
  EXPECT_EQ(s.min_ns, values.front());
  EXPECT_EQ(s.max_ns, values.back());
}

TEST(LatencyHistogram, OneWayIsHalfTheRoundTrip) {
  LatencyHistogram h;
  h.add(2000);
  h.add(4001);
  const LatencySummary s = h.summary(2);
  EXPECT_EQ(s.min_ns, 1000);
  EXPECT_EQ(s.max_ns, 2000);
  EXPECT_EQ(s.p50_ns, 1000);
}

TEST(LatencyHistogram, EmptyIsAllZero) {
  LatencyHistogram h;
  const LatencySummary s = h.summary(2);
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.p99_ns, 0);
}

}  // namespace
}  // namespace spiral::roce
