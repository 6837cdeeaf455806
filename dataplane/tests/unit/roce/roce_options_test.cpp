// The roce keys and flags: what the operator emits parses into plain values, and every refusal
// names the key and what to change.
#include <gtest/gtest.h>

#include "app/cli.hpp"
#include "sys/errors.hpp"
#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "transports/roce/rdma_options.hpp"
#include "transports/roce/roce_build.hpp"

#include "cell_refusal.hpp"

namespace spiral {
namespace {

using nlohmann::json;

json roce_cell() { return {{"transport", "roce"}, {"role", "client"}}; }

using spiral::testing::with;
using spiral::testing::refusal;

class RoceOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!SPIRAL_HAVE_RDMA) GTEST_SKIP() << "built without rdma-core: transport roce is refused at parse time";
  }
};

TEST_F(RoceOptions, TheOperatorsFlagsBecomeTheCell) {
  const char* argv[] = {"spiral-dataplane", "server",        "--transport",   "roce",        "--verb",
                        "write",            "--mode",        "latency",       "--payload-bytes", "8388608",
                        "--queue-pairs",    "1",             "--tx-depth",    "64",          "--rx-depth",
                        "128",              "--memory",      "host_pinned",   "--rdma-device", "mlx5_0",
                        "--netdev",         "enp1s0f0np0",   "--seconds",     "10",          "--warmup-seconds",
                        "2",                "--server-address", "10.0.0.2",   "--bind-address", "10.0.0.1",
                        "--base-port",      "5201",          "--ready-file",  "/run/ready",  "--summary-file",
                        "/dev/termination-log", "--label",   "cell=3"};
  std::ostringstream out;
  Cell c = parse_cell(*parse_command_line(static_cast<int>(std::size(argv)), argv, out));
  EXPECT_EQ(c.kind->name, "roce");
  EXPECT_EQ(c.role, Role::server);
  EXPECT_EQ(rdma_options(c).verb, RdmaOptions::Verb::write);
  EXPECT_EQ(rdma_options(c).mode, RdmaOptions::Mode::latency);
  EXPECT_EQ(c.payload_bytes, 8388608u);
  EXPECT_EQ(c.pairs, 1u);
  EXPECT_EQ(rdma_options(c).tx_depth, 64u);
  EXPECT_EQ(rdma_options(c).rx_depth, 128u);
  EXPECT_EQ(rdma_options(c).memory, BufferMemory::host_pinned);
  EXPECT_EQ(rdma_options(c).device, "mlx5_0");
  EXPECT_EQ(rdma_options(c).netdev, "enp1s0f0np0");
  EXPECT_EQ(c.batch, 1u);
  EXPECT_FALSE(rdma_options(c).verify_payload);
  EXPECT_EQ(c.labels.at("cell"), "3");
}

TEST_F(RoceOptions, DefaultsAreSendBandwidthSizedToTheMessage) {
  Cell c = parse_cell(roce_cell());
  EXPECT_EQ(rdma_options(c).verb, RdmaOptions::Verb::send);
  EXPECT_EQ(rdma_options(c).mode, RdmaOptions::Mode::bandwidth);
  EXPECT_EQ(rdma_options(c).tx_depth, 0u);
  EXPECT_EQ(rdma_options(c).rx_depth, 0u);
  EXPECT_EQ(rdma_options(c).memory, BufferMemory::host);
  EXPECT_TRUE(rdma_options(c).device.empty());
  EXPECT_EQ(c.pairs, 1u);
  EXPECT_EQ(c.batch, 1u);
}

TEST_F(RoceOptions, TheRecordsCellParsesBackToTheSameCell) {
  Cell c = parse_cell(with(with(with(roce_cell(), "verb", "read"), "queue_pairs", 4), "verify_payload", true));
  json again = cell_to_json(c);
  EXPECT_EQ(again["queue_pairs"], 4);
  Cell d = parse_cell(again);
  EXPECT_EQ(d.pairs, 4u);
  EXPECT_EQ(rdma_options(d).verb, RdmaOptions::Verb::read);
  EXPECT_TRUE(rdma_options(d).verify_payload);
}

TEST_F(RoceOptions, RefusalsNameTheKey) {
  EXPECT_EQ(refusal(with(roce_cell(), "verb", "atomic")), "cell: \"verb\" must be send, write or read, got \"atomic\"");
  EXPECT_EQ(refusal(with(roce_cell(), "mode", "pingpong")), "cell: \"mode\" must be bandwidth or latency, got \"pingpong\"");
  EXPECT_EQ(refusal(with(roce_cell(), "memory", "gpu")),
            "cell: \"memory\" must be host, host_pinned or device, got \"gpu\"");
  EXPECT_EQ(refusal(with(roce_cell(), "tx_depth", 9000)), "cell: \"tx_depth\" must be an integer in 0..8192, got 9000");
  EXPECT_EQ(refusal(with(roce_cell(), "queue_pairs", 0)), "cell: \"queue_pairs\" must be an integer in 1..64, got 0");
  EXPECT_EQ(refusal(with(roce_cell(), "netdev", "a-very-long-interface-name")),
            "cell: \"netdev\" is longer than 15 characters");
}

TEST_F(RoceOptions, DeviceMemoryNeedsGpuDirect) {
  EXPECT_EQ(refusal(with(roce_cell(), "memory", "device")),
            "cell: \"memory\" is device, which needs GPU memory registered for GPUDirect RDMA (dma-buf or "
            "nvidia-peermem): this spiral-dataplane does not register GPU memory with the NIC yet; use host or "
            "host_pinned");
}

TEST_F(RoceOptions, CombinationsThatMeanNothingAreRefused) {
  EXPECT_EQ(refusal(with(with(roce_cell(), "mode", "latency"), "queue_pairs", 2)),
            "cell: \"queue_pairs\" must be 1 in latency mode (ping-pong on one queue pair), got 2");
  EXPECT_EQ(refusal(with(with(roce_cell(), "pairs", 1), "queue_pairs", 2)),
            "cell: \"queue_pairs\" is 2 but \"pairs\" is 1: for roce give queue_pairs only");
  EXPECT_EQ(refusal(with(with(roce_cell(), "mode", "latency"), "target_mbps", 1000)),
            "cell: \"target_mbps\" must be 0 in latency mode (one message in flight: nothing to pace)");
  EXPECT_NO_THROW(parse_cell(with(roce_cell(), "target_mbps", 1000))) << "bandwidth mode is paced in software";
  EXPECT_EQ(refusal(with(roce_cell(), "batch", 16)), "cell: \"batch\" must be 1 for roce (tx_depth bounds what is in flight)");
  EXPECT_EQ(refusal(with(roce_cell(), "tcp_nodelay", true)), "cell: \"tcp_nodelay\" applies to tcp only");
  EXPECT_EQ(refusal(with(roce_cell(), "udp_gso", true)), "cell: \"udp_gso\" applies to udp only");
  EXPECT_EQ(refusal(with(roce_cell(), "socket_buffer_bytes", 4096)), "cell: \"socket_buffer_bytes\" applies to tcp and udp only");
}

TEST(RoceKeys, ApplyToRoceOnly) {
  json tcp = {{"transport", "tcp"}, {"role", "client"}};
  EXPECT_EQ(refusal(with(tcp, "verb", "send")), "cell: \"verb\" applies to transport roce only");
  EXPECT_EQ(refusal(with(tcp, "queue_pairs", 2)), "cell: \"queue_pairs\" applies to transport roce only");
  EXPECT_EQ(refusal(with(tcp, "netdev", "eth0")), "cell: \"netdev\" applies to transport roce only");
}

TEST(RoceKeys, WithoutRdmaCoreRoceIsRefusedClearly) {
  if (SPIRAL_HAVE_RDMA) GTEST_SKIP() << "built with rdma-core";
  EXPECT_EQ(refusal(roce_cell()),
            "cell: \"transport\" is roce, but this spiral-dataplane was built without rdma-core (libibverbs): install "
            "libibverbs-dev and rebuild with SPIRAL_WITH_RDMA=AUTO or ON");
}

}  // namespace
}  // namespace spiral
