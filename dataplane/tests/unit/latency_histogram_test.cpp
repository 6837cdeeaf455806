#include "engine/latency_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace spiral {
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

// Known samples: 1..1000 us, each once. Nearest rank: p50 is the 500th, p99 the 990th, p99.9
// the 999th; each within its bucket's 0.1 %.
TEST(LatencyHistogram, PercentilesOfKnownSamples) {
  LatencyHistogram h;
  for (int64_t us = 1000; us >= 1; --us) h.add(us * 1000);  // order does not matter
  const LatencySummary s = h.summary(1);
  EXPECT_EQ(s.samples, 1000u);
  EXPECT_EQ(s.min_ns, 1000);
  EXPECT_NEAR(s.p50_ns, 500000, 500);
  EXPECT_NEAR(s.p99_ns, 990000, 990);
  EXPECT_NEAR(s.p999_ns, 999000, 999);
  EXPECT_EQ(s.max_ns, 1000000);
  EXPECT_LE(s.min_ns, s.p50_ns);
  EXPECT_LE(s.p50_ns, s.p99_ns);
  EXPECT_LE(s.p99_ns, s.p999_ns);
  EXPECT_LE(s.p999_ns, s.max_ns);
}

TEST(LatencyHistogram, OneOutlierIsTheTailOnly) {
  LatencyHistogram h;
  for (int i = 0; i < 999; ++i) h.add(5000);
  h.add(900000);
  const LatencySummary s = h.summary(1);
  EXPECT_NEAR(s.p50_ns, 5000, 5);
  EXPECT_NEAR(s.p99_ns, 5000, 5);
  EXPECT_NEAR(s.p999_ns, 5000, 5);  // the 999th of 1000 is still the common value
  EXPECT_EQ(s.max_ns, 900000);
  h.add(900000);  // 2 of 1001: rank ceil(0.999 * 1001) = 1000 lands on an outlier
  EXPECT_NEAR(h.summary(1).p999_ns, 900000, 900);
}

TEST(LatencyHistogram, ReportedHistogramCountsEverySampleInItsBucket) {
  LatencyHistogram h;
  const std::vector<int64_t> values = {3, 15, 16, 17, 18, 1000, 1023, 1024, 5000, 5100, 6000, 1'000'000};
  for (int64_t v : values) h.add(v);
  const LatencySummary s = h.summary(1);
  uint64_t total = 0;
  for (size_t i = 0; i < s.histogram.size(); ++i) {
    const LatencyBucket& b = s.histogram[i];
    EXPECT_LT(b.low_ns, b.high_ns);
    EXPECT_GT(b.count, 0u);
    if (i > 0) {
      EXPECT_LE(s.histogram[i - 1].high_ns, b.low_ns);
    }
    uint64_t inside = 0;
    for (int64_t v : values) inside += v >= b.low_ns && v < b.high_ns;
    EXPECT_EQ(b.count, inside) << "[" << b.low_ns << ", " << b.high_ns << ")";
    total += b.count;
  }
  EXPECT_EQ(total, values.size());
  // [0,16) holds 3 and 15; 16, 17 share [16,18); 18 starts [18,20); 8 buckets per power of two.
  ASSERT_GE(s.histogram.size(), 3u);
  EXPECT_EQ(s.histogram[0], (LatencyBucket{0, 16, 2}));
  EXPECT_EQ(s.histogram[1], (LatencyBucket{16, 18, 2}));
  EXPECT_EQ(s.histogram[2], (LatencyBucket{18, 20, 1}));
}

TEST(LatencyHistogram, ReportedBucketsTileTheRange) {
  uint64_t next = 0;
  for (size_t b = 0; b < 1 + 50 * 8; ++b) {
    ASSERT_EQ(LatencyHistogram::report_bucket_low(b), next) << b;
    ASSERT_EQ(LatencyHistogram::report_bucket_of(next), b);
    const uint64_t high = LatencyHistogram::report_bucket_low(b + 1);
    ASSERT_EQ(LatencyHistogram::report_bucket_of(high - 1), b);
    // every reported bound is a bound of the fine layout: a fine bucket never straddles two
    ASSERT_EQ(LatencyHistogram::bucket_low(LatencyHistogram::bucket_of(next)), next);
    next = high;
  }
}

TEST(LatencyHistogram, OneWayHistogramIsHalved) {
  LatencyHistogram h;
  h.add(10000);
  h.add(10001);
  const LatencySummary s = h.summary(2);
  ASSERT_EQ(s.histogram.size(), 1u);
  EXPECT_EQ(s.histogram[0].count, 2u);
  EXPECT_LE(s.histogram[0].low_ns, 5000);
  EXPECT_GT(s.histogram[0].high_ns, 5000);
}

TEST(LatencyHistogram, EmptyIsAllZero) {
  LatencyHistogram h;
  const LatencySummary s = h.summary(2);
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.p99_ns, 0);
  EXPECT_EQ(s.p999_ns, 0);
  EXPECT_TRUE(s.histogram.empty());
}

}  // namespace
}  // namespace spiral
