// NVLink or PCIe under NCCL's P2P: each rank's NVML record of its own GPU, classified at rank 0.
// The records are shaped as NVML reports them on an NVLink-bridged pair, an NVSwitch board
// (HGX: every GPU's links end at the same switches) and PCIe-only cards.
#include "transports/nccl/gpu_links.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "transports/nccl/summary_part.hpp"

namespace spiral::nccl {
namespace {

GpuLinks gpu(const std::string& bus, std::vector<std::string> remotes) {
  GpuLinks g;
  g.known = true;
  g.pci_bus_id = normalise_bus_id(bus);
  for (const auto& r : remotes) g.nvlink_remotes.push_back(normalise_bus_id(r));
  return g;
}

TEST(GpuLinks, BusIdsOfNvmlAndCudaAreOneSpelling) {
  EXPECT_EQ(normalise_bus_id("00000000:1B:00.0"), "0000:1b:00.0");  // NVML
  EXPECT_EQ(normalise_bus_id("0000:1B:00.0"), "0000:1b:00.0");      // CUDA
  EXPECT_EQ(normalise_bus_id("00000001:c3:00.0"), "0001:c3:00.0");
}

TEST(GpuLinks, NvlinkByBridgeOrSwitchElsePcie) {
  // two PCIe cards joined by an NVLink bridge: each one's links end at the other
  const GpuLinks a = gpu("00000000:17:00.0", {"00000000:65:00.0", "00000000:65:00.0"});
  const GpuLinks b = gpu("0000:65:00.0", {"00000000:17:00.0"});
  EXPECT_EQ(p2p_path(a, b), P2pPath::nvlink);
  EXPECT_EQ(p2p_path(b, a), P2pPath::nvlink);
  // HGX: both GPUs' links end at the same NVSwitches
  const GpuLinks s0 = gpu("0000:18:00.0", {"0000:05:00.0", "0000:06:00.0"});
  const GpuLinks s1 = gpu("0000:2a:00.0", {"0000:06:00.0", "0000:05:00.0"});
  EXPECT_EQ(p2p_path(s0, s1), P2pPath::nvlink);
  // the same where NVML names no switch (a VM whose switches stay with the host)
  EXPECT_EQ(p2p_path(gpu("0000:18:00.0", {"nvswitch"}), gpu("0000:2a:00.0", {"nvswitch"})), P2pPath::nvlink);
  // no active NVLink on either (PCIe cards): PCIe
  EXPECT_EQ(p2p_path(gpu("0000:17:00.0", {}), gpu("0000:65:00.0", {})), P2pPath::pcie);
  // NVLinks, but to a third GPU only: the pair itself is on PCIe
  EXPECT_EQ(p2p_path(gpu("0000:17:00.0", {"0000:99:00.0"}), gpu("0000:65:00.0", {})), P2pPath::pcie);
  // one rank could not ask NVML: not guessed
  EXPECT_EQ(p2p_path(a, GpuLinks{}), P2pPath::unknown);
}

std::string four_gpu_log() {
  std::ifstream in(std::string(SPIRAL_TEST_DATA) + "/nccl/one_node_four_gpus.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// 0->1 and 1->2 on P2P over a bridge between 0 and 1 only, 2->3 on SHM, 3->0 on P2P with rank
// 3 unknown (no NVML there).
TEST(GpuLinks, ClassifiesOnlyP2pConnectionsBetweenKnownRanks) {
  TransportLog log = parse_transport_log(four_gpu_log());
  ASSERT_EQ(log.connections.size(), 4u);
  classify_p2p(log, {gpu("0000:17:00.0", {"0000:65:00.0"}), gpu("0000:65:00.0", {"0000:17:00.0"}),
                     gpu("0000:b3:00.0", {}), GpuLinks{}});
  EXPECT_EQ(transport_name(log.connections[0]), "P2P/NVLink");
  EXPECT_EQ(transport_name(log.connections[1]), "P2P/PCIe");
  EXPECT_EQ(transport_name(log.connections[2]), "SHM");
  EXPECT_EQ(transport_name(log.connections[3]), "P2P");
  // the path travels with the transports and reaches the summary's peers
  const TransportLog back = transport_log_from_json(to_json(log));
  EXPECT_EQ(transport_name(back.connections[0]), "P2P/NVLink");
  EXPECT_EQ(transport_name(back.connections[3]), "P2P");
  const auto part = summary_part(Collective::all_reduce, 4, {}, back);
  EXPECT_EQ(part["peers"][0].dump(), R"([0,1,"P2P/NVLink","P2P/CUMEM/read"])");
  EXPECT_EQ(part["peers"][1].dump(), R"([1,2,"P2P/PCIe","P2P/IPC/read"])");
}

TEST(GpuLinks, RecordsTravelAsJsonAndAnAbsentOneIsUnknown) {
  const GpuLinks a = gpu("00000000:17:00.0", {"00000000:65:00.0"});
  const GpuLinks back = gpu_links_from_json(to_json(a));
  EXPECT_TRUE(back.known);
  EXPECT_EQ(back.pci_bus_id, "0000:17:00.0");
  EXPECT_EQ(back.nvlink_remotes, a.nvlink_remotes);
  EXPECT_FALSE(gpu_links_from_json(nlohmann::json()).known);  // a rank that sent none
  EXPECT_FALSE(gpu_links_from_json(nlohmann::json{{"known", true}}).known);
}

}  // namespace
}  // namespace spiral::nccl
