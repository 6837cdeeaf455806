#include "engine/token_bucket.hpp"

#include <gtest/gtest.h>

#include <random>

namespace spiral {
namespace {

constexpr double kRate = 125e6;   // bytes/s = 1 Gb/s
constexpr uint32_t kUnit = 8000;  // one datagram
constexpr double kBurst = 125e3;  // 1 ms of tokens
constexpr int64_t kSecond = 1'000'000'000;

TEST(TokenBucket, StartsEmptyAndRefillsAtTheRate) {
  TokenBucket b(kRate, kBurst, 0);
  EXPECT_EQ(b.take(0, kUnit, 64), 0u);
  EXPECT_EQ(b.wait_ns(0, kUnit), 64'000);  // 8000 B at 125 B/us
  EXPECT_EQ(b.take(63'999, kUnit, 64), 0u);
  EXPECT_EQ(b.take(64'000, kUnit, 64), 1u);
  EXPECT_EQ(b.take(64'000 + 3 * 64'000, kUnit, 64), 3u);
}

TEST(TokenBucket, FinePollingHoldsTheRateWithinOneDatagram) {
  TokenBucket b(kRate, kBurst, 0);
  uint64_t sent = 0;
  for (int64_t t = 0; t <= kSecond; t += 5'000) sent += uint64_t{b.take(t, kUnit, 64)} * kUnit;
  EXPECT_LE(sent, static_cast<uint64_t>(kRate));
  EXPECT_GE(sent, static_cast<uint64_t>(kRate) - kUnit);
}

// The sender's real loop: sleep for the announced wait, but wake late by up to 80 us (timer
// slack, scheduling), and spend time in each send. The bucket must still hold the rate.
TEST(TokenBucket, JitteredSleepsStillHoldTheRate) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> late(0, 80'000);
  TokenBucket b(kRate, kBurst, 0);
  uint64_t sent = 0;
  int64_t now = 0;
  while (now < 2 * kSecond) {
    uint32_t n = b.take(now, kUnit, 64);
    if (n == 0) {
      now += b.wait_ns(now, kUnit) + late(rng);
      continue;
    }
    sent += uint64_t{n} * kUnit;
    now += 1'500 * n;  // send cost per datagram
  }
  const double achieved = double(sent) / 2.0;
  EXPECT_NEAR(achieved, kRate, kRate * 0.002) << "achieved " << achieved << " B/s";
}

TEST(TokenBucket, IdleTimeBuysAtMostOneBurst) {
  TokenBucket b(kRate, kBurst, 0);
  const uint32_t n = b.take(10 * kSecond, kUnit, 1000);
  EXPECT_EQ(n, static_cast<uint32_t>(kBurst / kUnit));  // 15, not 10 s worth
  EXPECT_EQ(b.take(10 * kSecond, kUnit, 1000), 0u);
}

TEST(TokenBucket, NoWindowExceedsBurstPlusRate) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> step(1'000, 3'000'000);  // up to 3 ms naps
  TokenBucket b(kRate, kBurst, 0);
  std::vector<std::pair<int64_t, uint64_t>> sends;  // (time, bytes)
  for (int64_t now = 0; now < kSecond; now += step(rng)) sends.emplace_back(now, uint64_t{b.take(now, kUnit, 64)} * kUnit);
  // Any 10 ms window carries at most one burst more than the rate allows.
  for (size_t i = 0; i < sends.size(); ++i) {
    uint64_t bytes = 0;
    for (size_t j = i; j < sends.size() && sends[j].first - sends[i].first <= 10'000'000; ++j) bytes += sends[j].second;
    ASSERT_LE(bytes, kRate * 0.010 + kBurst) << "window starting at " << sends[i].first;
  }
}

}  // namespace
}  // namespace spiral
