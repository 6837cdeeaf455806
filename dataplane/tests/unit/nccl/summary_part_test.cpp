// The summary parts the operator reads (pkg/summary/collective.go parses the same shapes).
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
            R"({"network":"IB","op":"all_gather","peers":[[0,1,"NET/IB","NET/IB/0/GDRDMA"]],"ranks":2,)"
            R"("rows":[[134217728,0,11163000,12023,6011,0],[134217728,1,11020400,12179,6089,-1]],"version":"2.28.9+cuda13.0"})");
}

// 8 B .. 16 GiB at factor 2 in both placements is 64 rows: with the rest of a summary it must
// stay inside the 4 KiB termination message.
TEST(SummaryPart, AFullSweepFitsTheTerminationMessage) {
  std::vector<nccl::SizeRow> rows;
  for (uint64_t b = 8; b <= (16ull << 30); b *= 2)
    for (bool ip : {false, true}) rows.push_back({b, b / 4, ip, 123456.78, 1234.56, 1234.56, 0, 0});
  nccl::TransportLog log;
  for (int r = 0; r < 8; ++r) log.connections.push_back({r, (r + 1) % 8, nccl::Link::net_ib, "NET/IB/0/GDRDMA", true, 2});
  EXPECT_LT(nccl::summary_part(nccl::Collective::all_reduce, 8, rows, log).dump().size(), 3300u);
}

TEST(SummaryPart, CopyRows) {
  const auto j = gpucopy::summary_part({{0, "NVIDIA H200", "0000:00:06.0", -1, 5, 16, 5, 16}},
                                       {{0, "h2d", "pinned", 8388608, 151.0, 55.553}});
  EXPECT_EQ(j.dump(), R"({"gpus":[[0,-1,5,16]],"rows":[[0,"h2d","pinned",8388608,151000,55553]]})");
}

}  // namespace
}  // namespace spiral
