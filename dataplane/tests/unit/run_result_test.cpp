#include <gtest/gtest.h>

#include "metrics/run_result.hpp"
#include "metrics/verdict.hpp"
#include "report_builders.hpp"
#include "run/outcome.hpp"

namespace spiral {
namespace {

using namespace spiral::testing;

TEST(CombineUdp, LossIsSentMinusReceivedPerPair) {
  Cell cell = udp_cell(2);
  SideReport tx = side({udp_sent(10, 1009), udp_sent(0, 499)}, 2000);
  SideReport rx = side({udp_received(10, 1009, 1000), udp_received(5, 489, 480)});
  rx.queues[0].kernel_drops = 7;  // the socket's /proc/net/udp drops: DAQIRI's drops
  RunResult r = combine(cell, &tx, &rx, -1);
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_EQ(r.tx_packets, 1500u);
  EXPECT_EQ(r.rx_packets, 1480u);
  EXPECT_EQ(r.pairs[1].lost, 20u);  // 5 head + 5 gaps + 10 tail
  EXPECT_EQ(r.lost, 20u);  // the sequence gaps, kept apart from DAQIRI's drops
  EXPECT_EQ(r.drops, 7u);
  EXPECT_EQ(r.drops_kind, "udp-proc-net-udp-drops");
  EXPECT_EQ(r.loss_ppm, 13333);
  EXPECT_EQ(r.seconds_milli, 2000);
  EXPECT_EQ(r.tx_mbps, 6);  // 1.5 MB in 2 s = 6 Mb/s
  EXPECT_EQ(r.rx_mbps, 5);  // 1.48 MB over the sender's 2 s window
  EXPECT_EQ(r.pps, 740u);
  EXPECT_EQ(judge(cell, r).state, RunState::valid);
}

TEST(CombineUdp, InconsistentCountersMakeTheRunInvalid) {
  Cell cell = udp_cell();
  QueueCounters tx = udp_sent(0, 99);
  tx.by_phase[index(Phase::measure)].packets = 101;  // counted one more than it numbered
  SideReport sender = side({tx}), receiver = side({udp_received(0, 99, 100)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  Verdict v = judge(cell, r);
  EXPECT_EQ(v.state, RunState::invalid);
  EXPECT_EQ(v.reason, "counters inconsistent: pair 0: sender counted 101 datagrams but numbered 100");
}

TEST(CombineUdp, NothingReceivedIsInvalid) {
  Cell cell = udp_cell();
  SideReport sender = side({udp_sent(0, 99)}), receiver = side({udp_received(0, 0, 0)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(r.lost, 100u);
  EXPECT_EQ(judge(cell, r).reason, "no bytes received in the measured window");
}

TEST(CombineUdp, PacedRunBelowItsTargetIsInvalid) {
  Cell cell = udp_cell();
  cell.target_mbps = 10;
  SideReport sender = side({udp_sent(0, 999)}), receiver = side({udp_received(0, 999, 1000)});  // 8 Mb/s
  RunResult r = combine(cell, &sender, &receiver, -1);
  EXPECT_EQ(judge(cell, r).reason, "sender reached 8 of the 10 Mb/s target");
  cell.target_mbps = 8;
  EXPECT_EQ(judge(cell, r).state, RunState::valid);
}

TEST(CombineTcp, BytesMustAgreeOverTheWholeRun) {
  Cell cell = tcp_cell(2);
  QueueCounters sent = tcp_stream(8'000'000, 9'000'000, true);
  sent.retrans = 3;
  sent.segs_out = 1000;
  sent.kernel_drops = 5;  // the namespace's RetransSegs + InErrs over the window, on queue 0
  SideReport tx = side({sent, tcp_stream(4'000'000, 5'000'000, true)});
  SideReport rx = side({tcp_stream(7'990'000, 9'000'000, true), tcp_stream(4'010'000, 5'000'000, true)}, 1000);
  RunResult r = combine(cell, &tx, &rx, 1234);
  EXPECT_EQ(r.tx_bytes, 12'000'000u);
  EXPECT_EQ(r.rx_bytes, 12'000'000u);
  EXPECT_EQ(r.drops, 5u);
  EXPECT_EQ(r.drops_kind, "tcp-nstat-retrans+inerrs");
  EXPECT_EQ(r.retrans, 3u);
  EXPECT_EQ(r.loss_ppm, 3000);
  EXPECT_EQ(r.cpu_master_mpct, 1234);
  EXPECT_EQ(judge(cell, r).state, RunState::valid);

  rx.queues[1] = tcp_stream(4'010'000, 4'999'000, true);
  r = combine(cell, &tx, &rx, -1);
  EXPECT_EQ(judge(cell, r).reason, "counters inconsistent: sender wrote 14000000 bytes, receiver read 13999000");
  rx.queues[1].finished = false;
  r = combine(cell, &tx, &rx, -1);
  EXPECT_EQ(judge(cell, r).reason, "receiver did not reach the end of every stream within grace_ms");
}

TEST(CpuMeans, DistinctCoresOfEachRole) {
  std::vector<CoreBusy> cores = {{16, "tx", 90000}, {17, "tx", 80000}, {16, "tx", 90000},
                                 {18, "rx", 50000}, {8, "master", 4000}, {19, "rx", -1}};
  EXPECT_EQ(mean_busy(cores, "tx"), 85000);
  EXPECT_EQ(mean_busy(cores, "rx"), 50000);  // the unknown core does not count
  EXPECT_EQ(mean_busy(cores, "none"), -1);
}

TEST(Settle, AFailureWinsOverTheNumbers) {
  Cell cell = udp_cell();
  SideReport sender = side({udp_sent(0, 99)}), receiver = side({udp_received(0, 99, 100)});
  RunResult r = combine(cell, &sender, &receiver, -1);
  settle(cell, r, "control connection closed by the peer");
  EXPECT_EQ(r.state, RunState::failed);
  EXPECT_EQ(r.reason, "control connection closed by the peer");
  settle(cell, r, "");
  EXPECT_EQ(r.state, RunState::valid);
}

}  // namespace
}  // namespace spiral
