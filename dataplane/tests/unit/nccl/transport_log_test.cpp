// NCCL's own reporting of its transports (NCCL_DEBUG=INFO), from logs in tests/data/nccl (their
// README says where each line format comes from).
#include "transports/nccl/transport_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sys/errors.hpp"

namespace spiral::nccl {
namespace {

std::string read_log(const std::string& name) {
  std::ifstream in(std::string(SPIRAL_TEST_DATA) + "/nccl/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(TransportLog, TwoSparksOverRoce) {
  const TransportLog log = parse_transport_log(read_log("two_sparks_roce.log"));
  EXPECT_EQ(log.nccl_version, "2.28.9+cuda13.0");
  EXPECT_EQ(log.network, "IB");
  EXPECT_EQ(log.net_devices, (std::vector<std::string>{"rocep1s0f0:1/RoCE", "rocep1s0f1:1/RoCE",
                                                        "roceP2p1s0f0:1/RoCE", "roceP2p1s0f1:1/RoCE"}));
  ASSERT_EQ(log.connections.size(), 2u);  // 0->1 and 1->0, both NET/IB, lines of both hosts merged
  for (const auto& c : log.connections) {
    EXPECT_EQ(c.link, Link::net_ib);
    EXPECT_TRUE(c.gpu_direct);
    EXPECT_EQ(c.channels, 4);  // two channels, each seen by the sender and the receiver
  }
  const auto peers = log.for_rank(0);
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(name(peers[0].link), "NET/IB");
  EXPECT_EQ(peers[0].channels, 8);
  EXPECT_EQ(rdma_violation(log, 2), "");
}

TEST(TransportLog, SocketFallbackIsAnRdmaViolation) {
  const TransportLog log = parse_transport_log(read_log("two_sparks_socket.log"));
  EXPECT_EQ(log.network, "Socket");
  EXPECT_EQ(log.net_devices, (std::vector<std::string>{"enp1s0f1np1:192.168.200.12<0>"}));
  ASSERT_EQ(log.connections.size(), 2u);
  EXPECT_EQ(log.connections[0].link, Link::net_socket);
  EXPECT_FALSE(log.connections[0].gpu_direct);
  const std::string why = rdma_violation(log, 2);
  EXPECT_NE(why.find("NET/Socket"), std::string::npos) << why;
  EXPECT_NE(why.find("rank 1 -> rank 0"), std::string::npos) << why;
}

TEST(TransportLog, OneNodeUsesP2pAndShm) {
  const TransportLog log = parse_transport_log(read_log("one_node_four_gpus.log"));
  EXPECT_EQ(log.network, "");
  ASSERT_EQ(log.connections.size(), 4u);
  EXPECT_EQ(log.connections[0].via, "P2P/CUMEM/read");
  EXPECT_EQ(log.connections[0].channels, 2);
  EXPECT_EQ(log.connections[1].via, "P2P/IPC/read");
  EXPECT_EQ(log.connections[2].link, Link::shm);
  EXPECT_EQ(log.connections[3].via, "P2P/direct pointer");
  const auto of_rank3 = log.for_rank(3);
  ASSERT_EQ(of_rank3.size(), 2u);  // SHM from rank 2, P2P to rank 0
  EXPECT_EQ(of_rank3[0].link, Link::shm);
  EXPECT_EQ(of_rank3[1].link, Link::p2p);
  EXPECT_EQ(rdma_violation(log, 4), "");  // never needed the network: nothing to violate
}

TEST(TransportLog, ExternalIbPluginCountsAsIb) {
  const TransportLog log = parse_transport_log(read_log("ib_plugin.log"));
  EXPECT_EQ(log.network, "IBext_v8");
  EXPECT_TRUE(log.uses(Link::net_ib));
  EXPECT_EQ(log.for_rank(37).size(), 3u);  // 21 (send), 45 (receive), 36 (P2P)
  EXPECT_EQ(rdma_violation(log, 64), "");
}

TEST(TransportLog, IgnoresOtherOutput) {
  const TransportLog log = parse_transport_log("hello\n#wrong 0[0] -> 1[1] via NET/Socket/0\n");
  EXPECT_TRUE(log.connections.empty());
  EXPECT_EQ(log.nccl_version, "");
  // several ranks and no connection seen: RDMA cannot be confirmed, so it is not assumed
  EXPECT_NE(rdma_violation(log, 2).find("names no connection"), std::string::npos);
  EXPECT_EQ(rdma_violation(log, 1), "");  // one rank has no peers to connect to
}

}  // namespace
}  // namespace spiral::nccl

namespace spiral::nccl {
namespace {

TEST(TransportLog, TravelsAsJsonAndMergesAcrossRanks) {
  const TransportLog roce = parse_transport_log(read_log("two_sparks_roce.log"));
  const TransportLog back = transport_log_from_json(to_json(roce));
  EXPECT_EQ(back.nccl_version, roce.nccl_version);
  EXPECT_EQ(back.net_devices, roce.net_devices);
  ASSERT_EQ(back.connections.size(), roce.connections.size());
  EXPECT_EQ(back.connections[0].link, Link::net_ib);
  TransportLog merged;
  merge(merged, back);
  merge(merged, back);  // the other rank saw the same connections
  EXPECT_EQ(merged.connections.size(), 2u);
  EXPECT_EQ(merged.connections[0].channels, 8);
  EXPECT_THROW(transport_log_from_json(nlohmann::json::object()), RunFailure);
}

}  // namespace
}  // namespace spiral::nccl
