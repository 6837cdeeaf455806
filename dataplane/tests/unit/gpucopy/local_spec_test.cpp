// The local tests' plain parts (no GPU): names, the chase's layout, median and spread, the
// summary's integer form, and the cell keys that choose them.
#include "transports/gpucopy/local_spec.hpp"

#include <gtest/gtest.h>

#include <set>

#include "cell_refusal.hpp"
#include "config/cell_parse.hpp"
#include "transports/gpucopy/gpucopy_options.hpp"

namespace spiral::gpucopy {
namespace {

using spiral::testing::refusal;
using spiral::testing::with;

TEST(LocalSpec, NamesRoundTripAndUnknownOnesAreRefused) {
  for (LocalTest t : {LocalTest::sm_read, LocalTest::sm_write}) EXPECT_EQ(local_test_named(name(t)), t);
  for (LatencyTarget t : {LatencyTarget::device, LatencyTarget::host, LatencyTarget::peer})
    EXPECT_EQ(latency_target_named(name(t)), t);
  EXPECT_THROW(local_test_named("ce_read"), BadInput);
  EXPECT_THROW(latency_target_named("nvlink"), BadInput);
}

// nvbandwidth's layout: every load lands one cache line (16 pointers) further, and the chase
// comes back to its start after n / 16 loads, each line of the buffer visited once.
TEST(LocalSpec, ChaseVisitsEachCacheLineOnceThenWraps) {
  const uint64_t n = kChaseBytes / sizeof(void*);
  std::set<uint64_t> seen;
  uint64_t slot = 0;
  for (uint64_t i = 0; i < n / kChaseStride; ++i) {
    EXPECT_TRUE(seen.insert(slot).second) << "slot " << slot << " visited twice";
    const uint64_t next = chase_next(slot, n);
    EXPECT_EQ((next + n - slot) % n, kChaseStride);
    slot = next;
  }
  EXPECT_EQ(slot, 0u);
  EXPECT_EQ(seen.size(), kChaseBytes / 128);
}

TEST(LocalSpec, MedianAndCoefficientOfVariation) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(cv_percent({5}), 0) << "one repeat has no spread";
  EXPECT_DOUBLE_EQ(cv_percent({10, 10, 10}), 0);
  // mean 10, sample stddev sqrt(((-2)^2 + 0 + 2^2) / 2) = 2: 20 %
  EXPECT_NEAR(cv_percent({8, 10, 12}), 20.0, 1e-9);
  const LocalFigure f = figure_of(1, "latency_host", -1, {800, 820, 810});
  EXPECT_DOUBLE_EQ(f.value, 810);
  EXPECT_EQ(f.repeats, 3);
  EXPECT_TRUE(f.latency());
  EXPECT_FALSE(figure_of(0, "sm_read", -1, {1}).latency());
}

TEST(LocalSpec, SummaryPartIsIntegersInThousandths) {
  const auto part = local_part({figure_of(0, "sm_write", -1, {3000.25}), figure_of(0, "latency_peer", 1, {700, 710})});
  ASSERT_EQ(part.size(), 2u);
  EXPECT_EQ(part[0], nlohmann::json({0, "sm_write", -1, 3000250, 0, 1}));
  EXPECT_EQ(part[1][2], 1);
  EXPECT_EQ(part[1][3], 705000);          // ps
  EXPECT_EQ(part[1][4], 1003);  // 1.003 %: sample stddev 7.07 / mean 705
  EXPECT_EQ(part[1][5], 2);
}

const nlohmann::json kCopy = {{"transport", "gpucopy"}, {"role", "rank"}};

TEST(LocalSpec, CellKeysChooseTheTestsAndDefaultToNone) {
  const CopySpec plain = copy_options(parse_cell(kCopy));
  EXPECT_TRUE(plain.local.tests.empty());
  EXPECT_TRUE(plain.local.latency.empty());
  EXPECT_EQ(plain.local.repeats, 1);
  const CopySpec s = copy_options(parse_cell(
      with(with(with(with(kCopy, "local_tests", "sm_read,sm_write"), "latency", "host,device"), "local_repeats", 5),
           "local_bytes", 1 << 20)));
  EXPECT_EQ(s.local.tests, (std::vector<LocalTest>{LocalTest::sm_read, LocalTest::sm_write}));
  EXPECT_EQ(s.local.latency, (std::vector<LatencyTarget>{LatencyTarget::host, LatencyTarget::device}));
  EXPECT_EQ(s.local.repeats, 5);
  EXPECT_EQ(s.local.bytes, 1u << 20);
}

TEST(LocalSpec, CellKeysRefuseWhatCannotRun) {
  auto says = [](const nlohmann::json& cell, const std::string& part) {
    const std::string why = refusal(cell);
    return why.find(part) != std::string::npos ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << why;
  };
  EXPECT_TRUE(says(with(kCopy, "latency", "nvlink"), "cell: \"latency\" unknown latency target \"nvlink\""));
  EXPECT_TRUE(says(with(kCopy, "local_tests", "sm_copy"), "known: sm_read, sm_write"));
  EXPECT_TRUE(says(with(kCopy, "local_bytes", 1000), "cell: \"local_bytes\" must be a multiple of 16"));
  EXPECT_TRUE(says(with(kCopy, "local_repeats", 0), "cell: \"local_repeats\""));
  EXPECT_TRUE(says(with(kCopy, "local_repeats", 101), "cell: \"local_repeats\""));
}

}  // namespace
}  // namespace spiral::gpucopy
