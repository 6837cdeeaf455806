#include "transports/nccl/sweep_rows.hpp"

#include <gtest/gtest.h>

#include "sys/errors.hpp"

namespace spiral::nccl {
namespace {

SweepSpec all_gather_spec() {
  SweepSpec spec;
  spec.collective = Collective::all_gather;
  return spec;
}

TEST(SweepRows, JsonRoundTrips) {
  const std::vector<SizeRow> rows{{1024, 128, false, 12.5, 0.3, 0.15, 0, 12.0}, {1024, 128, true, 11.0, 0.4, 0.2, -1, 10.5}};
  const auto back = rows_from_json(to_json(rows));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].in_place, true);
  EXPECT_EQ(back[1].wrong, -1);
  EXPECT_DOUBLE_EQ(back[0].time_us, 12.5);
  EXPECT_DOUBLE_EQ(back[1].gpu_time_us, 10.5);
  EXPECT_THROW(rows_from_json(nlohmann::json::parse(R"([{"bytes":1}])")), RunFailure);
}

// As nccl-tests: the ranks' mean time, bandwidths from it, wrong elements summed.
TEST(SweepRows, MergesRanksAsNcclTests) {
  // all_gather of 1 MiB at 2 ranks: count 131072 floats per rank
  const std::vector<std::vector<SizeRow>> per_rank{{{1 << 20, 131072, false, 100.0, 0, 0, 0, 90.0}},
                                                   {{1 << 20, 131072, false, 300.0, 0, 0, 3, 290.0}}};
  const auto merged = merge_ranks(per_rank, all_gather_spec());
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_DOUBLE_EQ(merged[0].time_us, 200.0);
  EXPECT_DOUBLE_EQ(merged[0].gpu_time_us, 190.0);
  EXPECT_DOUBLE_EQ(merged[0].algbw_gbps, 131072.0 * 4 * 2 / 1e9 / 200e-6);
  EXPECT_DOUBLE_EQ(merged[0].busbw_gbps, merged[0].algbw_gbps / 2);
  EXPECT_EQ(merged[0].wrong, 3);
  EXPECT_FALSE(check_passed(merged));
}

// nccl-tests 2.19's -I percentiles: p50 the upper median, p99 the nearest rank.
TEST(SweepRows, IterationPercentilesAsNcclTests) {
  std::vector<double> times;
  for (int i = 100; i >= 1; --i) times.push_back(i);  // 1..100 us, in any order
  IterationStats s = iteration_stats(times);
  EXPECT_DOUBLE_EQ(s.p50_us, 51.0);
  EXPECT_DOUBLE_EQ(s.p99_us, 99.0);
  s = iteration_stats({10.0, 12.0, 11.0, 30.0});
  EXPECT_DOUBLE_EQ(s.p50_us, 12.0);  // sorted[4 / 2]
  EXPECT_DOUBLE_EQ(s.p99_us, 30.0);        // 20 iterations or fewer: p99 is the slowest
  EXPECT_DOUBLE_EQ(iteration_stats({}).p99_us, 0.0);
}

// Two ranks: the slowest is named with its own time, the percentiles are the larger rank's, and
// all of it survives the report each rank sends to rank 0.
TEST(SweepRows, MergeNamesTheSlowestRankAndKeepsTheLargerPercentiles) {
  SizeRow r0{1 << 20, 131072, false, 100.0, 0, 0, 0, 90.0}, r1 = r0;
  r0.p50_us = 95.0, r0.p99_us = 140.0;
  r1.time_us = 104.0, r1.p50_us = 99.0, r1.p99_us = 120.0;
  const auto back = rows_from_json(to_json({r1}));
  EXPECT_DOUBLE_EQ(back[0].p99_us, 120.0);
  const auto merged = merge_ranks({{r0}, back}, all_gather_spec());
  EXPECT_DOUBLE_EQ(merged[0].time_us, 102.0);
  EXPECT_EQ(merged[0].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(merged[0].slowest_time_us, 104.0);
  EXPECT_DOUBLE_EQ(merged[0].p50_us, 99.0);
  EXPECT_DOUBLE_EQ(merged[0].p99_us, 140.0);
  const auto one = merge_ranks({{r0}}, all_gather_spec());  // one rank is its own slowest
  EXPECT_EQ(one[0].slowest_rank, 0);
  EXPECT_DOUBLE_EQ(one[0].slowest_time_us, 100.0);
}

TEST(SweepRows, RanksWithOtherSizesAreAFailure) {
  const std::vector<std::vector<SizeRow>> per_rank{{{1024, 128, false, 1, 0, 0, 0}}, {{2048, 256, false, 1, 0, 0, 0}}};
  EXPECT_THROW(merge_ranks(per_rank, all_gather_spec()), RunFailure);
}

TEST(SweepRows, TablePairsPlacementsPerSize) {
  const std::vector<SizeRow> rows{{8, 2, false, 10.0, 0.0, 0.0, 0}, {8, 2, true, 9.5, 0.0, 0.0, 0},
                                  {1048576, 262144, false, 20.0, 52.43, 0.0, -1}};
  const std::string table = format_table(rows, all_gather_spec());
  EXPECT_NE(table.find("            8            2    float   none     -1       10.00     0.00     0.00      0        9.50"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("N/A"), std::string::npos);  // the unchecked row and the missing in-place row
  EXPECT_TRUE(check_passed(rows));
}

}  // namespace
}  // namespace spiral::nccl
