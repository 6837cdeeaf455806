#include "sys/host_facts.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace spiral {

std::string read_trimmed(const std::string& root, const std::string& path) {
  std::ifstream in(root + path);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string cmdline_value(const std::string& cmdline, const std::string& key) {
  std::istringstream words(cmdline);
  std::string word, value;
  while (words >> word)  // the last occurrence wins, as in the kernel
    if (word.rfind(key + "=", 0) == 0) value = word.substr(key.size() + 1);
  return value;
}

int pcie_generation(const std::string& link_speed) {
  double gts = 0;
  try {
    gts = std::stod(link_speed);
  } catch (...) {
    return -1;
  }
  const struct {
    double gts;
    int generation;
  } table[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}, {128, 7}};
  for (const auto& row : table)
    if (gts > row.gts - 0.1 && gts < row.gts + 0.1) return row.generation;
  return -1;
}

Hugepages parse_meminfo(const std::string& meminfo) {
  Hugepages h;
  std::istringstream lines(meminfo);
  std::string key;
  int64_t value = 0;
  std::string rest;
  while (lines >> key >> value) {
    std::getline(lines, rest);
    if (key == "HugePages_Total:") h.total = value;
    else if (key == "HugePages_Free:") h.free = value;
    else if (key == "Hugepagesize:") h.size_kib = value;
  }
  return h;
}

namespace {
int to_int(const std::string& s, int fallback) {
  try {
    return s.empty() ? fallback : std::stoi(s);
  } catch (...) {
    return fallback;
  }
}
}  // namespace

PciLink read_pci_link(const std::string& root, const std::string& address) {
  PciLink link;
  link.address = address;
  if (address.empty()) return link;
  const std::string dir = "/sys/bus/pci/devices/" + address + "/";
  link.width = to_int(read_trimmed(root, dir + "current_link_width"), -1);
  link.speed = read_trimmed(root, dir + "current_link_speed");
  link.generation = pcie_generation(link.speed);
  link.numa_node = to_int(read_trimmed(root, dir + "numa_node"), -1);
  return link;
}

HostFacts read_host_facts(const std::string& root) {
  HostFacts f;
  f.kernel_cmdline = read_trimmed(root, "/proc/cmdline");
  f.isolcpus = cmdline_value(f.kernel_cmdline, "isolcpus");
  f.nohz_full = cmdline_value(f.kernel_cmdline, "nohz_full");
  f.cpu_governor = read_trimmed(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  f.hugepages = parse_meminfo(read_trimmed(root, "/proc/meminfo"));
  return f;
}

NetdevFacts read_netdev_facts(const std::string& root, const std::string& netdev) {
  NetdevFacts f;
  const std::string dir = "/sys/class/net/" + netdev + "/";
  f.mtu = to_int(read_trimmed(root, dir + "mtu"), -1);
  f.speed_mbps = to_int(read_trimmed(root, dir + "speed"), -1);
  if (f.speed_mbps < 0) f.speed_mbps = -1;  // sysfs says -1 for a link that is down
  // device -> ../../../0000:01:00.0 for a PCI NIC; virtual devices have no device link.
  std::error_code ec;
  const auto target = std::filesystem::read_symlink(root + dir + "device", ec);
  auto pci_like = [](const std::string& name) { return name.size() >= 12 && name[4] == ':' && name[7] == ':'; };
  if (!ec && pci_like(target.filename().string())) f.pci_address = target.filename().string();
  // A DPDK port named by its PCI address has no netdev: its PCI device is the name itself.
  if (ec && pci_like(netdev)) f.pci_address = netdev;
  f.pci = read_pci_link(root, f.pci_address);
  return f;
}

}  // namespace spiral
