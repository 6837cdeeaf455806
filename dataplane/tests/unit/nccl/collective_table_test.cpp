// The operation table against nccl-tests 2.19.6's definitions (doc/PERFORMANCE.md and each
// src/<op>.cu): counts per rank for a requested size, and algbw/busbw per operation.
#include <gtest/gtest.h>

#include "sys/errors.hpp"
#include "transports/nccl/collective.hpp"

namespace spiral::nccl {
namespace {

TEST(CollectiveTable, HasTheEightOperationsOnceEach) {
  ASSERT_EQ(collectives().size(), 8u);
  for (const char* name :
       {"sendrecv", "all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter", "alltoall", "alltoallv"})
    EXPECT_EQ(collective_named(name).name, name);
  EXPECT_EQ(collective_named("all_gather").nccl_tests, "all_gather_perf");
}

TEST(CollectiveTable, UnknownNamesAreRefusedWithTheKnownOnes) {
  try {
    collective_named("allreduce");
    FAIL() << "accepted an unknown operation";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos) << e.what();
  }
}

// busbw = algbw * factor, with factor 2(n-1)/n for all_reduce, (n-1)/n for all_gather,
// reduce_scatter and alltoall, 1 for broadcast, reduce and sendrecv.
TEST(CollectiveTable, BusBandwidthFactorsAreNcclTests) {
  for (int n : {1, 2, 3, 4, 8, 16}) {
    const double nm1 = static_cast<double>(n - 1) / n;
    EXPECT_DOUBLE_EQ(info(Collective::all_reduce).bus_factor(n), 2 * nm1) << n;
    EXPECT_DOUBLE_EQ(info(Collective::all_gather).bus_factor(n), nm1) << n;
    EXPECT_DOUBLE_EQ(info(Collective::reduce_scatter).bus_factor(n), nm1) << n;
    EXPECT_DOUBLE_EQ(info(Collective::all_to_all).bus_factor(n), nm1) << n;
    EXPECT_DOUBLE_EQ(info(Collective::broadcast).bus_factor(n), 1.0) << n;
    EXPECT_DOUBLE_EQ(info(Collective::reduce).bus_factor(n), 1.0) << n;
    EXPECT_DOUBLE_EQ(info(Collective::send_recv).bus_factor(n), 1.0) << n;
  }
}

// algbw counts the per-rank count times the element size, times the ranks for the operations
// whose count is a slice (all_gather, reduce_scatter, alltoall).
TEST(CollectiveTable, AlgorithmBandwidthCountsBytesAsNcclTests) {
  const double seconds = 1e-3;
  const Bandwidth ag = bandwidth(info(Collective::all_gather), 1000, 4, seconds, 4);
  EXPECT_DOUBLE_EQ(ag.algbw_gbps, 1000.0 * 4 * 4 / 1e9 / seconds);
  EXPECT_DOUBLE_EQ(ag.busbw_gbps, ag.algbw_gbps * 3 / 4);
  const Bandwidth ar = bandwidth(info(Collective::all_reduce), 1000, 4, seconds, 4);
  EXPECT_DOUBLE_EQ(ar.algbw_gbps, 1000.0 * 4 / 1e9 / seconds);
  EXPECT_DOUBLE_EQ(ar.busbw_gbps, ar.algbw_gbps * 1.5);
  const Bandwidth a2a = bandwidth(info(Collective::all_to_all), 250, 4, seconds, 4);
  EXPECT_DOUBLE_EQ(a2a.algbw_gbps, 250.0 * 4 * 4 / 1e9 / seconds);
  EXPECT_EQ(bandwidth(info(Collective::all_reduce), 1000, 4, 0.0, 4).algbw_gbps, 0.0);  // no time, no figure
}

// Seed 004: sendrecv_perf over two Sparks, 4 GiB messages, 20.38 GB/s busbw; for sendrecv
// busbw == algbw == size / time, so the time per operation was 4294967296 / 20.38e9 s.
TEST(CollectiveTable, ReproducesSeed004SendRecvFigure) {
  const double seconds = 4294967296.0 / 20.38e9;
  const Bandwidth bw = bandwidth(info(Collective::send_recv), 4294967296 / 4, 4, seconds, 2);
  EXPECT_NEAR(bw.busbw_gbps, 20.38, 1e-9);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, bw.algbw_gbps);
}

// Per-rank slices round down to 16 bytes: 1000 floats over 3 ranks is 333 -> 332 each.
TEST(CollectiveTable, SlicesAreAlignedAsNcclTests) {
  const Counts ag = info(Collective::all_gather).counts(1000, 4, 3);
  EXPECT_EQ(ag.send, 332u);
  EXPECT_EQ(ag.recv, 996u);
  EXPECT_EQ(ag.param, 332u);
  EXPECT_EQ(ag.send_inplace_offset, 332u);
  EXPECT_EQ(ag.recv_inplace_offset, 0u);
  const Counts rs = info(Collective::reduce_scatter).counts(1000, 4, 3);
  EXPECT_EQ(rs.send, 996u);
  EXPECT_EQ(rs.recv, 332u);
  EXPECT_EQ(rs.recv_inplace_offset, 332u);
  const Counts a2a = info(Collective::all_to_all).counts(1000, 8, 3);  // doubles: 333 -> 332 (even)
  EXPECT_EQ(a2a.param, 332u);
  EXPECT_EQ(a2a.send, 996u);
  EXPECT_EQ(a2a.recv, 996u);
  const Counts bytes = info(Collective::all_gather).counts(100, 1, 2);  // int8: 50 -> 48
  EXPECT_EQ(bytes.param, 48u);
  const Counts ar = info(Collective::all_reduce).counts(1000, 4, 3);
  EXPECT_EQ(ar.send, 1000u);
  EXPECT_EQ(ar.recv, 1000u);
  EXPECT_EQ(ar.param, 1000u);
}

TEST(CollectiveTable, ReportedSizeIsTheLargerBuffer) {
  const Counts ag = info(Collective::all_gather).counts(1024, 4, 4);
  EXPECT_EQ(reported_bytes(ag, 4), 4096u);
  const Counts one_rank = info(Collective::all_gather).counts(2, 4, 1);  // 8 B of floats at one rank
  EXPECT_EQ(one_rank.param, 0u);  // below 16 B a slice rounds to nothing, as in nccl-tests
}

}  // namespace
}  // namespace spiral::nccl
