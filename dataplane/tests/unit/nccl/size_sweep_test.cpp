#include "config/size_sweep.hpp"

#include <gtest/gtest.h>

#include "sys/errors.hpp"

namespace spiral {
namespace {

TEST(SizeSweep, GeometricLikeNcclTestsDashF) {
  const auto s = sizes({8, 1ull << 30, 2, 0});  // -b 8 -e 1G -f 2
  ASSERT_EQ(s.size(), 28u);
  EXPECT_EQ(s.front(), 8u);
  EXPECT_EQ(s[1], 16u);
  EXPECT_EQ(s.back(), 1ull << 30);
  const auto seed004 = sizes({256ull << 20, 4ull << 30, 2, 0});  // -b 256M -e 4G -f 2
  EXPECT_EQ(seed004, (std::vector<uint64_t>{256ull << 20, 512ull << 20, 1ull << 30, 2ull << 30, 4ull << 30}));
}

TEST(SizeSweep, StopsAtOrBelowTheMaximum) {
  EXPECT_EQ(sizes({3, 50, 4, 0}), (std::vector<uint64_t>{3, 12, 48}));
  EXPECT_EQ(sizes({64, 64, 2, 0}), (std::vector<uint64_t>{64}));
}

TEST(SizeSweep, ArithmeticWithAStep) {
  EXPECT_EQ(sizes({100, 400, 1, 100}), (std::vector<uint64_t>{100, 200, 300, 400}));
}

TEST(SizeSweep, RefusesSweepsThatCannotRun) {
  EXPECT_THROW(sizes({0, 8, 2, 0}), BadInput);
  EXPECT_THROW(sizes({16, 8, 2, 0}), BadInput);
  EXPECT_THROW(sizes({8, 64, 1, 0}), BadInput);
  EXPECT_THROW(sizes({1, 1ull << 40, 1, 1}), BadInput);  // more than kMaxSweepSizes
}

TEST(SizeSweep, ParsesBinaryUnits) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("64K"), 64u << 10);
  EXPECT_EQ(parse_size("128M"), 128u << 20);
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("4g"), 4ull << 30);
  EXPECT_THROW(parse_size(""), BadInput);
  EXPECT_THROW(parse_size("1T"), BadInput);
  EXPECT_THROW(parse_size("12MB"), BadInput);
  EXPECT_THROW(parse_size("M"), BadInput);
}

}  // namespace
}  // namespace spiral
