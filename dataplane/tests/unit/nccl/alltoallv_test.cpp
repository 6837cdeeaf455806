// alltoallv's traffic against nccl-tests 2.19.6's alltoallv.cu: the distance-weighted split, the
// counts, the traffic matrix, and a CPU model of the exchange the engine runs, checked with the
// same expectations the GPU check uses.
#include "transports/nccl/alltoallv.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sys/errors.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/expectation.hpp"

namespace spiral::nccl {
namespace {

// nccl-tests' picture: rank 0 to 4 ranks, spread 1 sends nothing to itself and 1, 2, 3 sixths
// to ranks 1, 2, 3; spread 0 a quarter each.
TEST(AllToAllv, DistanceWeightedSplitIsNcclTests) {
  const uint64_t total = 6 * 1024;
  AllToAllvPattern p;
  EXPECT_EQ(peer_bytes(p, 0, 0, 4, total), 0u);
  EXPECT_EQ(peer_bytes(p, 0, 1, 4, total), 1024u);
  EXPECT_EQ(peer_bytes(p, 0, 2, 4, total), 2048u);
  EXPECT_EQ(peer_bytes(p, 0, 3, 4, total), 3072u);
  EXPECT_EQ(peer_bytes(p, 3, 0, 4, total), 1024u);  // distance is (to - from) mod n
  p.spread = 0;
  for (int j = 0; j < 4; ++j) EXPECT_EQ(peer_bytes(p, 0, j, 4, total), total / 4);
  p.spread = 0.5;
  EXPECT_EQ(peer_bytes(p, 0, 3, 4, total), (1536u + 3072u) / 2 & ~15ull);
  EXPECT_EQ(peer_bytes(p, 0, 0, 1, 1000), 992u);  // one rank: everything to itself, 16-byte multiple
}

TEST(AllToAllv, CountsAreTheLargestRanksAsNcclTests) {
  const Counts c = alltoallv_counts(AllToAllvPattern{}, 1000, 4, 3);  // floats: 333 -> 332 per peer
  EXPECT_EQ(c.param, 332u);
  // total 332*3*4 = 3984 B; distances 0,1,2 of 3: 0, 1328, 2656 B -> 0, 332, 664 floats
  EXPECT_EQ(c.send, 996u);
  EXPECT_EQ(c.recv, 996u);
  EXPECT_EQ(reported_bytes(c, 4), 3984u);
  const AllToAllvPattern m = parse_traffic_matrix("100 200 150\n50 100 75\n300 150 200");
  const Counts mc = alltoallv_counts(m, 0, 1, 3);
  EXPECT_EQ(mc.param, 0u);                       // a matrix has no per-peer count
  // rounded to 16: 96 192 144 / 48 96 64 / 288 144 192; rows send 432 208 624, columns receive 432 432 400
  EXPECT_EQ(mc.send, 624u);
  EXPECT_EQ(mc.recv, 432u);
}

TEST(AllToAllv, TrafficMatrixParsesAsNcclTestsFile) {
  const AllToAllvPattern m = parse_traffic_matrix("100 200; 50 100");
  EXPECT_EQ(m.dim, 2);
  EXPECT_EQ(m.matrix, (std::vector<uint64_t>{96, 192, 48, 96}));
  EXPECT_THROW(parse_traffic_matrix("1 2 3"), BadInput);
  EXPECT_THROW(parse_traffic_matrix("1 x 3 4"), BadInput);
  EXPECT_THROW(parse_traffic_matrix(""), BadInput);
  EXPECT_EQ(alltoallv_refusal(m, 3, 1024, 1024),
            "the traffic matrix is 2x2 but the cell has 3 ranks: give a row and a column for every rank");
  EXPECT_EQ(alltoallv_refusal(m, 2, 8, 1024),
            "a traffic matrix fixes every size: set min_bytes equal to max_bytes (nccl-tests -b = -e)");
  EXPECT_EQ(alltoallv_refusal(m, 2, 256, 256), "max_bytes 256 is below the largest rank's 288 bytes of the traffic matrix");
  EXPECT_EQ(alltoallv_refusal(m, 2, 288, 288), "");
  EXPECT_EQ(alltoallv_refusal(m, 1, 288, 288), "");  // a larger matrix: the first rows and columns
}

// The exchange the engine runs (grouped sends and receives at alltoallv_segments' offsets),
// modelled on the CPU: every received element is what expected_value says for its segment.
void expect_exchange_checks(const AllToAllvPattern& p, int n, size_t elements) {
  const Counts c = alltoallv_counts(p, elements, 4, n);
  std::vector<std::vector<double>> send(n, std::vector<double>(c.send)), recv(n, std::vector<double>(c.recv, -1));
  for (int r = 0; r < n; ++r)
    for (size_t k = 0; k < c.send; ++k) send[r][k] = input_value(ReduceOp::sum, r, k, 5);
  for (int r = 0; r < n; ++r) {
    uint64_t sent = 0;
    for (const PeerSegment& s : alltoallv_segments(p, r, n, c.param, 4)) {
      ASSERT_LE(s.send_at + s.send_count, c.send);
      // what the peer posts as its receive from r
      const PeerSegment at_peer = alltoallv_segments(p, s.peer, n, c.param, 4)[r];
      ASSERT_EQ(at_peer.recv_count, s.send_count) << r << "->" << s.peer;
      ASSERT_EQ(at_peer.peer_send_at, s.send_at) << r << "->" << s.peer;
      for (uint64_t k = 0; k < s.send_count; ++k) recv[s.peer][at_peer.recv_at + k] = send[r][s.send_at + k];
      sent += s.send_count;
    }
    EXPECT_LE(sent, c.send);
  }
  for (int r = 0; r < n; ++r)
    for (const PeerSegment& s : alltoallv_segments(p, r, n, c.param, 4)) {
      const CheckShape shape{Collective::all_to_all_v, ReduceOp::sum, n, r, s.peer, s.peer_send_at, 5};
      for (uint64_t k = 0; k < s.recv_count; ++k)
        ASSERT_EQ(expected_value(shape, k, false).value, recv[r][s.recv_at + k]) << "rank " << r << " from " << s.peer;
    }
}

TEST(AllToAllv, TheExchangeMeetsTheCheck) {
  for (int n : {1, 2, 3, 5, 8})
    for (double spread : {0.0, 0.37, 1.0}) expect_exchange_checks(AllToAllvPattern{spread, 0, {}}, n, 4096 + 40);
  expect_exchange_checks(parse_traffic_matrix("100 200 150; 50 100 75; 300 150 200"), 3, 0);
  expect_exchange_checks(parse_traffic_matrix("0 64 32; 16 0 0; 48 48 48; "), 3, 0);
}

// algbw is the largest rank's bytes (the reported size) over the time; busbw (n-1)/n of it.
TEST(AllToAllv, BandwidthIsTheLargestRanksBytes) {
  const Bandwidth bw = bandwidth(info(Collective::all_to_all_v), 332, 4, 1e-3, 3, 3984);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, 3984.0 / 1e9 / 1e-3);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, bw.algbw_gbps * 2 / 3);
}

}  // namespace
}  // namespace spiral::nccl
