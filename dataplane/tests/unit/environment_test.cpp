// The environment capture's parsers and readers over host samples (data/env/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "output/environment_json.hpp"
#include "sys/host_facts.hpp"

namespace spiral {
namespace {

const std::string kData = std::string(SPIRAL_TEST_DATA) + "/env";

// data/env/spark_host.txt materialised into a fresh root (its sysfs paths hold ':').
class SparkRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("sbw2-env-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::ifstream in(kData + "/spark_host.txt");
    ASSERT_TRUE(in);
    std::map<std::string, std::string> files;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto tab = line.find('\t');
      ASSERT_NE(tab, std::string::npos) << line;
      const std::string path = line.substr(0, tab), content = line.substr(tab + 1);
      std::filesystem::create_directories(std::filesystem::path(root_.string() + path).parent_path());
      if (content.rfind("-> ", 0) == 0) {
        std::filesystem::create_symlink(content.substr(3), root_.string() + path);
      } else {
        files[path] += content + "\n";
      }
    }
    for (const auto& [path, content] : files) std::ofstream(root_.string() + path) << content;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }
  std::filesystem::path root_;
};

TEST(HostFacts, CmdlineValuesAndTheLastOneWins) {
  EXPECT_EQ(cmdline_value("ro isolcpus=2-5 quiet", "isolcpus"), "2-5");
  EXPECT_EQ(cmdline_value("isolcpus=1 isolcpus=managed_irq,3", "isolcpus"), "managed_irq,3");
  EXPECT_EQ(cmdline_value("ro quiet", "isolcpus"), "");
  EXPECT_EQ(cmdline_value("xisolcpus=4", "isolcpus"), "");
}

TEST(HostFacts, PcieGenerationFromSysfsSpeed) {
  EXPECT_EQ(pcie_generation("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_generation("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_generation("64.0 GT/s PCIe"), 6);
  EXPECT_EQ(pcie_generation("Unknown"), -1);
  EXPECT_EQ(pcie_generation(""), -1);
}

TEST(HostFacts, CapturedFirecrackerGuestHasNoIsolationNorGovernor) {
  const HostFacts f = read_host_facts(kData + "/firecracker");
  EXPECT_NE(f.kernel_cmdline.find("console=ttyS0"), std::string::npos);
  EXPECT_EQ(f.isolcpus, "");
  EXPECT_EQ(f.cpu_governor, "");  // no cpufreq in the guest
  EXPECT_EQ(f.hugepages.total, 512);  // the DPDK tests' 2 MiB pages
  EXPECT_EQ(f.hugepages.free, 512);
  EXPECT_EQ(f.hugepages.size_kib, 2048);
  EXPECT_NE(f.cpu_model, "");  // x86's "model name"
  EXPECT_EQ(f.cpus_online, 2);
}

TEST(HostFacts, PciIdFromSysfsVendorAndDevice) {
  EXPECT_EQ(pci_id_of("0x15b3", "0x1021"), "15b3:1021");
  EXPECT_EQ(pci_id_of("0x15B3", "0x101D"), "15b3:101d");  // lowercase, as lspci -n prints it
  EXPECT_EQ(pci_id_of("", "0x1021"), "");                 // no vendor file
  EXPECT_EQ(pci_id_of("0x15b3", ""), "");
  EXPECT_EQ(pci_id_of("15b3", "1021"), "");               // not sysfs's format
  EXPECT_EQ(pci_id_of("0x15b3", "0x10g1"), "");
  EXPECT_EQ(pci_id_of("0x15b31", "0x1021"), "");
}

TEST(HostFacts, CpuModelOnX86AndArmAndCpuLists) {
  EXPECT_EQ(cpu_model_of("processor\t: 0\nmodel name\t: AMD EPYC 9454 48-Core Processor\n"),
            "AMD EPYC 9454 48-Core Processor");
  EXPECT_EQ(cpu_model_of("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n"), "Arm Neoverse-V2");
  EXPECT_EQ(cpu_model_of("CPU implementer\t: 0x61\nCPU part\t: 0x022\n"), "Arm 0x61 part 0x022");
  EXPECT_EQ(cpu_model_of(""), "");
  EXPECT_EQ(count_cpu_list("0-3,8,10-11"), 7);
  EXPECT_EQ(count_cpu_list("0"), 1);
  EXPECT_EQ(count_cpu_list(""), -1);
  EXPECT_EQ(count_cpu_list("3-1"), -1);
  EXPECT_EQ(count_cpu_list("a-b"), -1);
}

TEST_F(SparkRoot, HostFactsOfASpark) {
  const HostFacts f = read_host_facts(root());
  EXPECT_EQ(f.isolcpus, "managed_irq,domain,4-9");
  EXPECT_EQ(f.nohz_full, "4-9");
  EXPECT_EQ(f.cpu_governor, "performance");
  EXPECT_EQ(f.hugepages.total, 16);
  EXPECT_EQ(f.hugepages.free, 12);
  EXPECT_EQ(f.hugepages.size_kib, 1048576);
  EXPECT_EQ(f.cpu_model, "Arm Cortex-X925");  // the first processor's part
  EXPECT_EQ(f.cpus_online, 20);
}

TEST_F(SparkRoot, NicLinkPcieAndNuma) {
  const NetdevFacts n = read_netdev_facts(root(), "enp1s0f0np0");
  EXPECT_EQ(n.mtu, 9000);
  EXPECT_EQ(n.speed_mbps, 200000);
  EXPECT_EQ(n.pci_address, "0000:01:00.0");
  EXPECT_EQ(n.pci.width, 4);
  EXPECT_EQ(n.pci.generation, 5);
  EXPECT_EQ(n.pci.numa_node, 0);
  EXPECT_EQ(n.pci_id, "15b3:1021");  // the device's vendor and device files
  const NetdevFacts missing = read_netdev_facts(root(), "sbw2-none");
  EXPECT_EQ(missing.mtu, -1);
  EXPECT_EQ(missing.pci_address, "");
  EXPECT_EQ(missing.pci_id, "");
  const NetdevFacts dpdk_port = read_netdev_facts(root(), "0000:01:00.0");  // raw: ports by PCI address
  EXPECT_EQ(dpdk_port.pci_address, "0000:01:00.0");
  EXPECT_EQ(dpdk_port.pci.generation, 5);
  EXPECT_EQ(dpdk_port.pci_id, "15b3:1021");
  const PciLink gpu = read_pci_link(root(), "000f:01:00.0");
  EXPECT_EQ(gpu.width, 16);
  EXPECT_EQ(gpu.generation, -1);  // "Unknown": not trained, or not on PCIe
  EXPECT_EQ(gpu.numa_node, -1);
}

TEST_F(SparkRoot, EnvironmentJsonHasEveryKey) {
  const auto env = environment_json({"enp1s0f0np0"}, root());
  for (const char* key : {"dataplane_version", "dataplane_revision", "kernel", "kernel_cmdline", "isolcpus", "nohz_full",
                          "cpu_governor", "cpu_model", "cpus_online", "cpus_usable", "hugepages_total", "hugepages_free", "hugepage_size_kib", "nics", "gpu", "gpu_note"})
    EXPECT_TRUE(env.contains(key)) << key;
  ASSERT_EQ(env["nics"].size(), 1u);
  const auto& nic = env["nics"][0];
  EXPECT_EQ(nic["netdev"], "enp1s0f0np0");
  EXPECT_EQ(nic["mtu"], 9000);
  EXPECT_EQ(nic["pcie_gen"], 5);
  EXPECT_EQ(nic["numa_node"], 0);
  EXPECT_EQ(nic["pci_id"], "15b3:1021");
  // Driver, firmware and rings come from the ethtool ioctl on the live host: no such device here.
  EXPECT_EQ(nic["driver"], "");
  EXPECT_EQ(nic["rx_ring"], -1);
  EXPECT_EQ(env["isolcpus"], "managed_irq,domain,4-9");
  // Without NVML (no GPU driver on this machine) the GPU is null and the note says why.
  if (env["gpu"].is_null()) {
    EXPECT_NE(env["gpu_note"].get<std::string>(), "");
  }
  const auto compact = compact_environment(env, 20);
  EXPECT_EQ(compact["kernel_cmdline"], "BOOT_IMAGE=/boot/vml...");
}

TEST(Environment, CudaVersionText) {
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(-1), "");
}

TEST(Environment, LiveLoopbackInterfaceHasDriverlessNic) {
  // The real ioctl path on "lo": no driver info, no rings; the capture still completes.
  const auto env = environment_json({"lo"});
  ASSERT_EQ(env["nics"].size(), 1u);
  EXPECT_EQ(env["nics"][0]["pci_address"], "");
  EXPECT_NE(env["kernel"].get<std::string>(), "");
}

}  // namespace
}  // namespace spiral
