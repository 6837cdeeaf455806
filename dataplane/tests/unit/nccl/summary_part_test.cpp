// The summary parts the operator reads (pkg/benchkind/nccl_summary.go and gpucopy_summary.go parse the same shapes).
#include "transports/nccl/summary_part.hpp"

#include <gtest/gtest.h>

#include "transports/gpucopy/summary_part.hpp"

namespace spiral {
namespace {

TEST(SummaryPart, NcclRowsAreCompactIntegersWithUnits) {
  const std::vector<nccl::SizeRow> rows{{134217728, 33554432, false, 11163.0, 12.023, 6.0113, 0, 11100.0},
                                        {134217728, 33554432, true, 11020.4, 12.179, 6.0893, -1, 11000.0}};
  // built whole: assigning the strings one by one trips g++ 12's -Wmaybe-uninitialized at -O3
  const nccl::TransportLog log{"2.28.9+cuda13.0", "IB", {}, {{0, 1, nccl::Link::net_ib, "NET/IB/0/GDRDMA", true, 2}}};
  const auto j = nccl::summary_part(nccl::Collective::all_gather, 2, rows, log);
  EXPECT_EQ(j.dump(),
            R"({"iter":[[-1000,-1000,0,-1000],[-1000,-1000,0,-1000]],"network":"IB","op":"all_gather",)"
            R"("peers":[[0,1,"NET/IB","NET/IB/0/GDRDMA"]],"ranks":2,)"
            R"("rows":[[134217728,0,11163000,12023,6011,0],[134217728,1,11020400,12179,6089,-1]],"version":"2.28.9+cuda13.0"})");
}

// p50, p99 and the slowest rank's time travel per mille off the row's time: short numbers.
TEST(SummaryPart, PerIterationFiguresArePerMilleOffTheMean) {
  nccl::SizeRow r{1048576, 262144, false, 1000.0, 1.0, 1.0, 0, 990.0};
  r.p50_us = 998.0, r.p99_us = 1041.4, r.slowest_rank = 1, r.slowest_time_us = 1003.0;
  const auto j = nccl::summary_part(nccl::Collective::all_reduce, 2, {r}, {});
  EXPECT_EQ(j["iter"].dump(), "[[-2,41,1,3]]");
}

// What two H100s print for 8 B .. 1 GiB, both placements (56 rows): with the per-iteration
// figures it fits the nccl part's share of the termination message.
TEST(SummaryPart, ATwoGpuSweepKeepsItsPerIterationFigures) {
  std::vector<nccl::SizeRow> rows;
  for (uint64_t b = 8; b <= (1ull << 30); b *= 2)
    for (bool ip : {false, true}) {
      const double us = 20.0 + static_cast<double>(b) / 150e3;  // 20 us floor, 150 GB/s
      nccl::SizeRow r{b, b / 4, ip, us, b / us / 1e3, 2 * b / us / 1e3, ip ? -1 : 0, us - 2};
      r.p50_us = us * 0.995, r.p99_us = us * 1.12, r.slowest_rank = 1, r.slowest_time_us = us * 1.004;
      rows.push_back(r);
    }
  nccl::TransportLog log{"2.28.9+cuda13.0", "", {}, {{0, 1, nccl::Link::p2p, "P2P/CUMEM/read", false, 24},
                                                      {1, 0, nccl::Link::p2p, "P2P/CUMEM/read", false, 24}}};
  log.connections[0].path = log.connections[1].path = nccl::P2pPath::nvlink;
  const auto part = nccl::summary_part(nccl::Collective::all_reduce, 2, rows, log);
  const auto fitted = nccl::fit_summary_part(part, 4096 - 900);
  EXPECT_EQ(fitted.dump(), part.dump()) << part.dump().size() << " bytes";
  EXPECT_LT(part.dump().size(), 3000u);  // room for a longer reason or more peers
}

// Too much for the share: the per-iteration figures go first, then the largest sizes.
TEST(SummaryPart, FittingDropsPerIterationFiguresBeforeRows) {
  std::vector<nccl::SizeRow> rows;
  for (uint64_t b = 8; b <= (16ull << 30); b *= 2)
    for (bool ip : {false, true}) {
      nccl::SizeRow r{b, b / 4, ip, 123456.78, 1234.56, 1234.56, 0, 0};
      r.p50_us = 100000, r.p99_us = 200000, r.slowest_rank = 7, r.slowest_time_us = 130000;
      rows.push_back(r);
    }
  const auto part = nccl::summary_part(nccl::Collective::all_reduce, 8, rows, {});
  auto fitted = nccl::fit_summary_part(part, 3300);
  EXPECT_FALSE(fitted.contains("iter"));
  EXPECT_EQ(fitted["rows"].size(), 64u);
  fitted = nccl::fit_summary_part(part, 1000);
  EXPECT_LT(fitted.dump().size(), 1000u);
  EXPECT_GT(fitted["rows"].size(), 1u);
  EXPECT_EQ(fitted["rows"][0][0], 8);  // the smallest sizes stay
}

// 8 B .. 16 GiB at factor 2 in both placements is 64 rows: with the rest of a summary it must
// stay inside the 4 KiB termination message.
TEST(SummaryPart, AFullSweepFitsTheTerminationMessage) {
  std::vector<nccl::SizeRow> rows;
  for (uint64_t b = 8; b <= (16ull << 30); b *= 2)
    for (bool ip : {false, true}) rows.push_back({b, b / 4, ip, 123456.78, 1234.56, 1234.56, 0, 0});
  nccl::TransportLog log;
  for (int r = 0; r < 8; ++r) log.connections.push_back({r, (r + 1) % 8, nccl::Link::net_ib, "NET/IB/0/GDRDMA", true, 2});
  auto part = nccl::summary_part(nccl::Collective::all_reduce, 8, rows, log);
  part.erase("iter");  // what fit_summary_part drops first
  EXPECT_LT(part.dump().size(), 3196u);
}

TEST(SummaryPart, CopyRows) {
  const auto j = gpucopy::summary_part({{0, "NVIDIA H200", "0000:00:06.0", -1, 5, 16, 5, 16}},
                                       {{0, "h2d", "pinned", 8388608, 151.0, 55.553}});
  EXPECT_EQ(j.dump(), R"({"gpus":[[0,-1,5,16]],"rows":[[0,"h2d","pinned",8388608,151000,55553]]})");
}

}  // namespace
}  // namespace spiral
