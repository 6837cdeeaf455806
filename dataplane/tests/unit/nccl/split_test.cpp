// NCCL_TESTS_SPLIT as nccl-tests 2.19.6 reads it (README "Running multiple operations in
// parallel"; src/common.cu): the spellings, the colours and the groups they make.
#include "transports/nccl/split.hpp"

#include <gtest/gtest.h>

#include "sys/errors.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/sweep_rows.hpp"

namespace spiral::nccl {
namespace {

TEST(Split, EverySpellingOfNcclTests) {
  EXPECT_EQ(to_string(parse_split("AND 0x7")), "AND 7");
  EXPECT_EQ(to_string(parse_split("&7")), "AND 7");
  EXPECT_EQ(to_string(parse_split("or 0b11")), "OR 3");
  EXPECT_EQ(to_string(parse_split("|3")), "OR 3");
  EXPECT_EQ(to_string(parse_split("MOD 8")), "MOD 8");
  EXPECT_EQ(to_string(parse_split("%8")), "MOD 8");
  EXPECT_EQ(to_string(parse_split("DIV 8")), "DIV 8");
  EXPECT_EQ(to_string(parse_split("/8")), "DIV 8");
  EXPECT_FALSE(parse_split("").active());
  EXPECT_THROW(parse_split("XOR 3"), BadInput);
  EXPECT_THROW(parse_split("MOD"), BadInput);
  EXPECT_THROW(parse_split("MOD 0"), BadInput);
  EXPECT_THROW(parse_split("AND 0xZ"), BadInput);
}

// Two nodes of 8 GPUs (ranks 0-15): MOD 8 / AND 0x7 make 8 rails of 2 ranks (one GPU of each
// node: inter-node only); DIV 8 / OR 0x7 one group per node (intra-node only).
TEST(Split, RailsAndNodesOfTheReadme) {
  for (const char* rail : {"MOD 8", "AND 0x7"}) {
    const auto places = split_places(parse_split(rail), 16);
    for (int r = 0; r < 16; ++r) {
      EXPECT_EQ(places[r].colour, r % 8) << rail;
      EXPECT_EQ(places[r].rank, r / 8) << rail;
      EXPECT_EQ(places[r].nranks, 2) << rail;
    }
  }
  for (const char* node : {"DIV 8", "OR 0x7"}) {
    const auto places = split_places(parse_split(node), 16);
    for (int r = 0; r < 16; ++r) {
      EXPECT_EQ(places[r].colour == places[0].colour, r < 8) << node << " rank " << r;
      EXPECT_EQ(places[r].rank, r % 8) << node;
      EXPECT_EQ(places[r].nranks, 8) << node;
    }
  }
  const auto every_other = split_places(parse_split("MOD 2"), 6);  // the README's "every other rank"
  EXPECT_EQ(every_other[4].colour, 0);
  EXPECT_EQ(every_other[4].rank, 2);
  EXPECT_EQ(every_other[5].rank, 2);
}

TEST(Split, GroupsOfDifferentSizesAndRootsOutsideAreRefused) {
  EXPECT_EQ(split_refusal(parse_split("MOD 4"), 6, 0),
            "\"MOD 4\" splits 6 ranks into groups of different sizes (2 and 1): every group must time the same "
            "operation");
  EXPECT_EQ(split_refusal(parse_split("MOD 2"), 8, 4), "root 4 is not a rank of groups of 4");
  EXPECT_EQ(split_refusal(parse_split("MOD 2"), 8, 3), "");
  EXPECT_EQ(split_refusal(parse_split("MOD 2"), 8, 2), "");
  EXPECT_EQ(split_refusal(parse_split("MOD 1"), 1, 0), "");  // one GPU: one group of one
  EXPECT_EQ(split_refusal(SplitRule{}, 5, 4), "");
}

// The merged rows' bandwidth counts the group's ranks, not the cell's.
TEST(Split, BandwidthCountsTheGroupsRanks) {
  SweepSpec spec;
  spec.collective = Collective::all_reduce;
  spec.split = parse_split("MOD 2");
  const SizeRow row{1 << 20, (1 << 20) / 4, false, 100.0};
  const auto merged = merge_ranks({{row}, {row}, {row}, {row}}, spec);  // 4 ranks, groups of 2
  EXPECT_DOUBLE_EQ(merged[0].busbw_gbps, merged[0].algbw_gbps * 2 * 1 / 2);
  spec.split = {};
  EXPECT_DOUBLE_EQ(merge_ranks({{row}, {row}, {row}, {row}}, spec)[0].busbw_gbps, merged[0].algbw_gbps * 2 * 3 / 4);
}

}  // namespace
}  // namespace spiral::nccl
