// The hardware facts of the environment capture over a fault-injected host (data/env/README.md):
// PCIe current vs maximum link and payload size, a NIC's speed vs its fastest link mode, and the
// keys of each visible GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "output/environment_json.hpp"
#include "sys/ethtool.hpp"
#include "sys/host_facts.hpp"

namespace spiral {
namespace {

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// data/env/faulty_gpu_host.txt materialised into a fresh root.
class FaultyGpuHost : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("sbw2-hw-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::ifstream in(std::string(SPIRAL_TEST_DATA) + "/env/faulty_gpu_host.txt");
    ASSERT_TRUE(in);
    std::map<std::string, std::string> files;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto tab = line.find('\t');
      ASSERT_NE(tab, std::string::npos) << line;
      const std::string path = line.substr(0, tab), content = line.substr(tab + 1);
      std::filesystem::create_directories(std::filesystem::path(root_.string() + path).parent_path());
      if (content.rfind("-> ", 0) == 0) std::filesystem::create_symlink(content.substr(3), root_.string() + path);
      else if (content.rfind("hex ", 0) == 0) files[path] = unhex(content.substr(4));
      else files[path] += content + "\n";
    }
    for (const auto& [path, content] : files) std::ofstream(root_.string() + path, std::ios::binary) << content;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }
  std::filesystem::path root_;
};

TEST_F(FaultyGpuHost, GpuTrainedDownAndItsPayloadSize) {
  const PciLink gpu = read_pci_link(root(), "0000:1b:00.0");
  EXPECT_EQ(gpu.generation, 3);
  EXPECT_EQ(gpu.width, 8);
  EXPECT_EQ(gpu.max_generation, 5);
  EXPECT_EQ(gpu.max_width, 16);
  EXPECT_TRUE(gpu.downtrained());
  EXPECT_EQ(gpu.mps_bytes, 256);
  EXPECT_EQ(gpu.mps_max_bytes, 512);
  const PciLink healthy = read_pci_link(root(), "0000:2a:00.0");  // the captured H200 as it was
  EXPECT_FALSE(healthy.downtrained());
  EXPECT_EQ(healthy.mps_bytes, 256);
  EXPECT_EQ(healthy.mps_max_bytes, 256);
}

TEST_F(FaultyGpuHost, NicAtTenOfAHundredGigabits) {
  const NetdevFacts nic = read_netdev_facts(root(), "enp1s0f0");
  EXPECT_EQ(nic.speed_mbps, 10000);
  EXPECT_EQ(nic.pci_id, "15b3:101d");
  EXPECT_EQ(nic.pci.generation, 4);
  EXPECT_EQ(nic.pci.max_generation, 4);
  EXPECT_FALSE(nic.pci.downtrained());
  EXPECT_EQ(nic.pci.mps_bytes, -1);  // no config file: not read, not guessed
  // Its port's supported modes as ETHTOOL_GLINKSETTINGS writes them: 1000baseT_Full (5),
  // Autoneg (6), Pause (13), 25G (31-33), 50G x2 (34-35), 100G x4 (36-39), FEC_RS (50).
  std::vector<uint32_t> supported(4, 0);
  for (int bit : {5, 6, 13, 31, 32, 33, 34, 35, 36, 37, 38, 39, 50}) supported[bit / 32] |= 1u << (bit % 32);
  EXPECT_EQ(max_link_mode_mbps(supported), 100000);
}

TEST(HardwareFacts, LinkModeSpeeds) {
  auto mask = [](std::initializer_list<int> bits) {
    std::vector<uint32_t> m(4, 0);
    for (int b : bits) m[b / 32] |= 1u << (b % 32);
    return m;
  };
  EXPECT_EQ(max_link_mode_mbps({}), -1);                                // veth: no modes
  EXPECT_EQ(max_link_mode_mbps(mask({6, 7, 13, 14, 49, 50, 51, 74})), -1);  // no speed among them
  EXPECT_EQ(max_link_mode_mbps(mask({85, 89})), 400000);                // 400G x4
  EXPECT_EQ(max_link_mode_mbps(mask({66, 115})), 800000);               // 800G x4 beats 200G
  EXPECT_EQ(max_link_mode_mbps(mask({124})), 1600000);
  EXPECT_EQ(max_link_mode_mbps(mask({125})), -1);  // newer than the table: unknown, not guessed
  EXPECT_EQ(max_link_mode_mbps(std::vector<uint32_t>{1u << 12}), 10000);  // one word is enough
}

TEST(HardwareFacts, MaxPayloadFromConfigSpace) {
  EXPECT_EQ(parse_max_payload("").bytes, -1);
  EXPECT_EQ(parse_max_payload(std::string(64, '\0')).bytes, -1);  // an unprivileged read: header only
  // A capability list that loops on itself ends without an answer.
  std::string looped(256, '\0');
  looped[0x06] = 0x10;
  looped[0x34] = 0x40;
  looped[0x40] = 0x01;
  looped[0x41] = 0x40;
  EXPECT_EQ(parse_max_payload(looped).bytes, -1);
  // PCI Express capability at 0x50: DevCap 0x05 (4096), DevCtl bits 7:5 = 0b101 (4096).
  std::string big = looped;
  big[0x41] = 0x50;
  big[0x50] = 0x10;
  big[0x54] = 0x05;
  big[0x58] = static_cast<char>(0xbf);
  EXPECT_EQ(parse_max_payload(big).bytes, 4096);
  EXPECT_EQ(parse_max_payload(big).max_bytes, 4096);
  big[0x54] = 0x07;  // reserved encoding: unknown
  EXPECT_EQ(parse_max_payload(big).max_bytes, -1);
}

TEST_F(FaultyGpuHost, EachVisibleGpusKeys) {
  gpu::NvmlSampler::GpuFacts g;
  g.pci_bus_id = "00000000:1B:00.0";  // NVML's spelling
  g.pstate = 0;
  g.nvlinks = 18;
  g.nvlinks_active = 12;
  g.nvlink_mbyte_s = std::vector<int64_t>(12, 26562);
  g.remapped_rows = 0;
  g.remap_pending = 0;
  const auto j = gpu_facts_json(g, root());
  EXPECT_EQ(j["pci_address"], "0000:1b:00.0");
  EXPECT_EQ(j["pcie_gen"], 3);
  EXPECT_EQ(j["pcie_width"], 8);
  EXPECT_EQ(j["pcie_max_gen"], 5);
  EXPECT_EQ(j["pcie_max_width"], 16);
  EXPECT_EQ(j["pcie_downtrained"], true);
  EXPECT_EQ(j["pcie_mps"], 256);
  EXPECT_EQ(j["pcie_mps_max"], 512);
  EXPECT_EQ(j["nvlinks"], 18);
  EXPECT_EQ(j["nvlinks_active"], 12);
  EXPECT_EQ(j["nvlink_mbyte_s"].size(), 12u);
  EXPECT_EQ(j["retired_pages"], -1);  // not given (Hopper retires rows, not pages)
  // A GPU sysfs does not show (a container without the host's PCI tree): NVML's link stands in.
  gpu::NvmlSampler::GpuFacts hidden;
  hidden.pci_bus_id = "00000000:99:00.0";
  hidden.pcie.generation = 4, hidden.pcie.width = 16, hidden.pcie.max_generation = 5, hidden.pcie.max_width = 16;
  const auto h = gpu_facts_json(hidden, root());
  EXPECT_EQ(h["pcie_gen"], 4);
  EXPECT_EQ(h["pcie_max_gen"], 5);
  EXPECT_EQ(h["pcie_downtrained"], true);
  EXPECT_EQ(h["pcie_mps"], -1);
}

TEST_F(FaultyGpuHost, EnvironmentNicKeysAndGpusWithoutNvml) {
  const auto env = environment_json({"enp1s0f0"}, root());
  const auto& nic = env["nics"][0];
  EXPECT_EQ(nic["speed_mbps"], 10000);
  for (const char* key : {"speed_max_mbps", "speed_max_note", "pcie_max_width", "pcie_max_gen", "pcie_downtrained", "pcie_mps",
                          "pcie_mps_max"})
    EXPECT_TRUE(nic.contains(key)) << key;
  // No such device here for the live ioctl: unknown, and the note says why.
  EXPECT_EQ(nic["speed_max_mbps"], -1);
  EXPECT_NE(nic["speed_max_note"], "");
  ASSERT_TRUE(env.contains("gpus"));
  if (env["gpus"].is_null()) {
    EXPECT_EQ(env["gpus_note"].get<std::string>().rfind("not available", 0), 0u);
  }
}

TEST_F(FaultyGpuHost, CompactEnvironmentHasOneRowPerGpu) {
  gpu::NvmlSampler::GpuFacts g;
  g.pci_bus_id = "00000000:1B:00.0";
  g.pstate = 0, g.nvlinks = 18, g.nvlinks_active = 12;
  g.nvlink_mbyte_s = {26562, 13281, -1};
  auto env = environment_json({"enp1s0f0"}, root());
  env["gpus"] = nlohmann::ordered_json::array({gpu_facts_json(g, root())});
  const auto compact = compact_environment(env);
  ASSERT_EQ(compact["gpus"].size(), 1u);
  const auto& row = compact["gpus"][0];
  ASSERT_EQ(row.size(), std::size(kCompactGpuColumns));
  EXPECT_EQ(row.dump(), R"(["0000:1b:00.0",3,5,8,16,256,512,0,18,12,13281,-1,-1,-1,-1])");
  EXPECT_FALSE(compact["nics"][0].contains("speed_max_note"));
  EXPECT_TRUE(compact["nics"][0].contains("speed_max_mbps"));
}

}  // namespace
}  // namespace spiral
