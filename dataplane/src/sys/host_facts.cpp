#include "sys/host_facts.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
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

std::string cpu_model_of(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  std::string line, implementer, part;
  auto value = [](const std::string& l) {
    auto v = l.substr(l.find(':') + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  };
  while (std::getline(lines, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) return value(line);
    if (line.rfind("CPU implementer", 0) == 0 && implementer.empty()) implementer = value(line);
    if (line.rfind("CPU part", 0) == 0 && part.empty()) part = value(line);
  }
  if (implementer.empty()) return "";
  // Arm Ltd's parts seen on GPU nodes (Grace: Neoverse-V2; GB10 pairs Cortex-X925 and A725)
  const struct {
    const char *implementer, *part, *name;
  } known[] = {{"0x41", "0xd4f", "Arm Neoverse-V2"}, {"0x41", "0xd0c", "Arm Neoverse-N1"},
               {"0x41", "0xd40", "Arm Neoverse-V1"}, {"0x41", "0xd85", "Arm Cortex-X925"},
               {"0x41", "0xd87", "Arm Cortex-A725"}};
  for (const auto& k : known)
    if (implementer == k.implementer && part == k.part) return k.name;
  return "Arm " + implementer + " part " + part;
}

int count_cpu_list(const std::string& list) {
  if (list.empty()) return -1;
  int count = 0;
  std::istringstream ranges(list);
  std::string range;
  while (std::getline(ranges, range, ',')) {
    try {
      const auto dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      if (last < first) return -1;
      count += last - first + 1;
    } catch (...) {
      return -1;
    }
  }
  return count;
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
  link.max_width = to_int(read_trimmed(root, dir + "max_link_width"), -1);
  link.max_speed = read_trimmed(root, dir + "max_link_speed");
  link.max_generation = pcie_generation(link.max_speed);
  link.numa_node = to_int(read_trimmed(root, dir + "numa_node"), -1);
  std::ifstream config(root + dir + "config", std::ios::binary);  // binary: read_trimmed would trim zeros
  const MaxPayload mps = parse_max_payload(std::string(std::istreambuf_iterator<char>(config), {}));
  link.mps_bytes = mps.bytes;
  link.mps_max_bytes = mps.max_bytes;
  return link;
}

bool PciLink::downtrained() const {
  const bool width_low = width > 0 && max_width > 0 && width < max_width;
  const bool speed_low = generation > 0 && max_generation > 0 && generation < max_generation;
  return width_low || speed_low;
}

MaxPayload parse_max_payload(const std::string& config) {
  // Offsets and fields from the PCI Local Bus Specification 3.0 (header: Status at 0x06, bit 4
  // "Capabilities List"; Capabilities Pointer at 0x34; each capability: ID, next pointer) and
  // the PCI Express Base Specification (section 7.5.3, PCI Express Capability, ID 0x10: Device
  // Capabilities at +0x04, bits 2:0 Max_Payload_Size Supported; Device Control at +0x08, bits
  // 7:5 Max_Payload_Size; both encode 128 << value bytes, values above 5 reserved).
  constexpr size_t kStatus = 0x06, kCapPointer = 0x34, kHeaderEnd = 0x40;
  constexpr unsigned kStatusCapList = 1u << 4;
  constexpr unsigned kPcieCapId = 0x10;
  constexpr size_t kDevCap = 0x04, kDevCtl = 0x08;
  constexpr int kMaxCaps = 48;  // Linux's PCI_FIND_CAP_TTL: a looped list ends
  MaxPayload out;
  auto byte = [&](size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(config[at])); };
  if (config.size() < kHeaderEnd || !((byte(kStatus) | byte(kStatus + 1) << 8) & kStatusCapList)) return out;
  size_t at = byte(kCapPointer) & 0xfc;
  for (int i = 0; i < kMaxCaps && at >= kHeaderEnd && at + 2 <= config.size(); ++i) {
    if (byte(at) == kPcieCapId) {
      if (at + kDevCtl + 2 > config.size()) return out;
      const unsigned supported = byte(at + kDevCap) & 0x7;
      const unsigned in_use = (byte(at + kDevCtl) >> 5) & 0x7;
      if (supported <= 5) out.max_bytes = 128 << supported;
      if (in_use <= 5) out.bytes = 128 << in_use;
      return out;
    }
    at = byte(at + 1) & 0xfc;
  }
  return out;
}

std::string pci_id_of(const std::string& vendor, const std::string& device) {
  // sysfs writes each as "0x" and four lowercase hex digits.
  auto hex16 = [](const std::string& s) -> std::string {
    if (s.size() != 6 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return "";
    std::string digits = s.substr(2);
    for (char& c : digits) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return digits;
  };
  const std::string v = hex16(vendor), d = hex16(device);
  return v.empty() || d.empty() ? "" : v + ":" + d;
}

HostFacts read_host_facts(const std::string& root) {
  HostFacts f;
  f.kernel_cmdline = read_trimmed(root, "/proc/cmdline");
  f.isolcpus = cmdline_value(f.kernel_cmdline, "isolcpus");
  f.nohz_full = cmdline_value(f.kernel_cmdline, "nohz_full");
  f.cpu_governor = read_trimmed(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  f.cpu_model = cpu_model_of(read_trimmed(root, "/proc/cpuinfo"));
  f.cpus_online = count_cpu_list(read_trimmed(root, "/sys/devices/system/cpu/online"));
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
  if (!f.pci_address.empty()) {
    const std::string pci_dir = "/sys/bus/pci/devices/" + f.pci_address + "/";
    f.pci_id = pci_id_of(read_trimmed(root, pci_dir + "vendor"), read_trimmed(root, pci_dir + "device"));
  }
  return f;
}

}  // namespace spiral
