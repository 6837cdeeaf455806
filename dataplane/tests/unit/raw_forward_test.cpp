// Raw forward mode: its keys, refusals, pool sizes, rates and MAC verdict.
#include <gtest/gtest.h>

#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "transports/raw/eal_plan.hpp"
#include "transports/raw/forward_result.hpp"
#include "transports/raw/frame.hpp"
#include "transports/raw/raw_options.hpp"

#include "cell_refusal.hpp"

namespace spiral {
namespace {

using nlohmann::json;
using spiral::testing::refusal;
using spiral::testing::with;

#ifdef SPIRAL_HAVE_DPDK
#define REQUIRE_DPDK_BUILD()
#else
#define REQUIRE_DPDK_BUILD() GTEST_SKIP() << "built without DPDK: every raw cell is refused"
#endif

json forward_cell() {
  return json{{"transport", "raw"},
              {"role", "loopback"},
              {"tx_port", "net_memif0,role=client,socket=/tmp/a.sock"},
              {"forward_rx_port", "net_memif1,role=server,socket=/tmp/a.sock"},
              {"forward_tx_port", "net_memif2,role=client,socket=/tmp/b.sock"},
              {"rx_port", "net_memif3,role=server,socket=/tmp/b.sock"}};
}

TEST(RawForward, ParsesAndEchoes) {
  REQUIRE_DPDK_BUILD();
  json j = forward_cell();
  j["forward_work"] = "cpu";
  j["forward_pipelines"] = 2;
  j["tx_queues"] = 2;
  j["rx_queues"] = 2;
  j["forward_work_ns"] = 500;
  j["batch"] = 128;
  j["cores"] = {{"forward_rx", {2, 4}}, {"forward_tx", {3, 5}}};
  const Cell c = parse_cell(j);
  const ForwardOptions& f = raw_options(c).forward;
  EXPECT_TRUE(f.enabled());
  EXPECT_EQ(f.work, ForwardWork::cpu);
  EXPECT_EQ(f.pipelines, 2u);
  EXPECT_EQ(f.work_ns, 500u);
  EXPECT_EQ(c.cores.list("forward_rx"), (std::vector<int>{2, 4}));
  const json echo = cell_to_json(c);
  EXPECT_EQ(echo["forward_work"], "cpu");
  EXPECT_EQ(echo["forward_pipelines"], 2);
  EXPECT_EQ(echo["cores"]["forward_tx"], (json{3, 5}));
}

TEST(RawForward, RefusalsSayWhatToChange) {
  REQUIRE_DPDK_BUILD();
  const json base = forward_cell();
  EXPECT_NE(refusal(with(base, "forward_work", "gpu")).find("must be none, cpu, gpu_kernel, gpu_persistent or gpu_graphs"),
            std::string::npos);
  EXPECT_NE(refusal(with(base, "forward_buffer_split", true))
                .find("needs a NIC whose driver splits a frame into two mbufs (RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT, e.g. "
                      "mlx5), but net_memif1 is a virtual device"),
            std::string::npos);
  EXPECT_NE(refusal(with(base, "forward_pipelines", 2)).find("must equal tx_queues (1) and rx_queues (1)"),
            std::string::npos);
  EXPECT_NE(refusal(with(with(with(base, "batch", 2048), "ring_descriptors", 4096), "pool_buffers", 16383))
                .find("is above 1024 for the forward mode"),
            std::string::npos);
  EXPECT_NE(refusal(with(base, "forward_rx_port", base["rx_port"])).find("needs four distinct ports"),
            std::string::npos);
  json plain = {{"transport", "raw"}, {"role", "loopback"}, {"tx_port", "net_ring0"}, {"rx_port", "net_ring0"}};
  EXPECT_NE(refusal(with(plain, "forward_work", "cpu")).find("applies to the forward mode only"), std::string::npos);
  EXPECT_NE(refusal(with(with(base, "forward_work", "cpu"), "workload", {{"kind", "fft"}})).find("GPU"),
            std::string::npos);
#ifdef SPIRAL_HAVE_CUDA
  EXPECT_NE(refusal(with(base, "forward_work", "gpu_graphs")).find("must be host_pinned for forward_work gpu_graphs"),
            std::string::npos);
  EXPECT_EQ(refusal(with(with(base, "forward_work", "gpu_graphs"), "memory", "host_pinned")), "(accepted)");
#else
  for (const char* w : {"gpu_kernel", "gpu_persistent", "gpu_graphs"})
    EXPECT_NE(refusal(with(base, "forward_work", w))
                  .find(std::string("is ") + w + ", which needs a GPU: this spiral-dataplane was built without CUDA"),
              std::string::npos)
        << w;
#endif
}

TEST(RawForward, PoolHoldsEverySlotOfEveryPipeline) {
  REQUIRE_DPDK_BUILD();
  json j = forward_cell();
  j["batch"] = 64;
  const Cell c = parse_cell(j);
  const RawOptions& o = raw_options(c);
  const raw::PoolSizes p = raw::pool_sizes(c, parse_port("tx_port", o.tx_port), parse_port("rx_port", o.rx_port),
                                           raw::frame_bytes(c.payload_bytes));
  EXPECT_GE(p.forward_pool_buffers, o.ring_descriptors + kForwardSlots * 64u + o.pool_buffers);
  EXPECT_GT(p.forward_spare_buffers, 0u);
}

TEST(RawForward, RatesAreOfferedAndForwarded) {
  RunResult r;
  r.seconds_milli = 2000;
  r.tx_packets = 4'000'000;
  r.rx_packets = 3'000'000;
  r.tx_bytes = 4'000'000ull * 1042;
  r.rx_bytes = 3'000'000ull * 1042;
  ForwardFigures f;
  forward_rates(f, r);
  EXPECT_DOUBLE_EQ(f.offered_mpps, 2.0);
  EXPECT_DOUBLE_EQ(f.forwarded_mpps, 1.5);
  EXPECT_DOUBLE_EQ(f.offered_gbps, 4'000'000.0 * 1042 * 8 / 2 / 1e9);
}

TEST(RawForward, VerdictChecksTheMacsForTheWork) {
  ForwardFigures f;
  f.enabled = true;
  f.sender_mac = "02:00:00:00:00:0a";
  f.receiver_mac = "02:00:00:00:00:0b";
  f.work = "cpu";
  f.mac_swapped = 100;
  EXPECT_EQ(forward_invalid_reason(f), "");
  f.mac_as_sent = 3;
  EXPECT_NE(forward_invalid_reason(f).find("3 of 103 frames came back with their MACs not swapped"), std::string::npos);
  f.work = "none";
  EXPECT_NE(forward_invalid_reason(f).find("100 of 103 frames came back with their MACs changed"), std::string::npos);
  f.mac_swapped = 0;
  EXPECT_EQ(forward_invalid_reason(f), "");
  f.work = "gpu_persistent";
  f.mac_as_sent = 0;
  f.mac_swapped = 10;
  f.gpu_stopped_cleanly = false;
  EXPECT_NE(forward_invalid_reason(f).find("did not stop within 2 s"), std::string::npos);
  f.gpu_stopped_cleanly = true;
  f.receiver_mac = f.sender_mac;
  EXPECT_NE(forward_invalid_reason(f).find("same MAC"), std::string::npos);
}

}  // namespace
}  // namespace spiral
