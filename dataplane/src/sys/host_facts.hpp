#pragma once
// Facts about the host a run depends on, read from /proc and /sys (under `root`, "" for the
// real ones, a directory of captured files in tests): kernel command line and isolated cores,
// CPU frequency governor, huge pages, and a PCI device's link (current and maximum), payload
// size and NUMA node. The parsers are pure functions of the files' text.
#include <cstdint>
#include <string>

namespace spiral {

// The file's text with trailing whitespace removed; "" when it cannot be read.
std::string read_trimmed(const std::string& root, const std::string& path);

// The value of `key=` on a kernel command line ("" when absent): isolcpus, nohz_full, ...
std::string cmdline_value(const std::string& cmdline, const std::string& key);

// PCIe generation of a sysfs link speed ("16.0 GT/s PCIe" -> 4); -1 when not recognised.
int pcie_generation(const std::string& link_speed);

struct Hugepages {
  int64_t total = -1, free = -1, size_kib = -1;  // /proc/meminfo HugePages_Total, _Free, Hugepagesize
};
Hugepages parse_meminfo(const std::string& meminfo);

// The CPU's name from /proc/cpuinfo: x86's "model name"; on Arm, which has none, the
// implementer and part ("Arm Neoverse-V2" for the parts it knows, else "Arm 0x41 part 0xd4f").
std::string cpu_model_of(const std::string& cpuinfo);

// The number of CPUs in a kernel CPU list ("0-3,8,10-11" -> 7); -1 when it does not parse.
int count_cpu_list(const std::string& list);

struct PciLink {
  std::string address;         // 0000:01:00.0
  int width = -1;              // current_link_width
  std::string speed;           // current_link_speed as sysfs writes it
  int generation = -1;         // from speed
  int max_width = -1;          // max_link_width: what the device and its slot allow
  std::string max_speed;       // max_link_speed
  int max_generation = -1;     // from max_speed
  int numa_node = -1;          // -1 also where the platform has one node
  int mps_bytes = -1;          // Max_Payload_Size in use (config space); -1 unread
  int mps_max_bytes = -1;      // Max_Payload_Size the device supports
  // The link trained below what the device and slot allow, in width or speed; false when
  // either side is unknown (never guessed).
  bool downtrained() const;
};
// A PCI device's link from /sys/bus/pci/devices/<address>/ ("" address: nothing read).
PciLink read_pci_link(const std::string& root, const std::string& address);

struct MaxPayload {
  int bytes = -1, max_bytes = -1;  // in use (Device Control) and supported (Device Capabilities)
};
// Max_Payload_Size from a PCI config space as sysfs's `config` file holds it (raw bytes). Both -1
// when the PCI Express capability is not in the bytes given: sysfs gives unprivileged readers
// only the 64-byte header, where no capability lives.
MaxPayload parse_max_payload(const std::string& config);

// The vendor:device id from sysfs's vendor and device files ("0x15b3", "0x1021" ->
// "15b3:1021", ConnectX-7); "" when either is missing or not a 16-bit hex number.
std::string pci_id_of(const std::string& vendor, const std::string& device);

struct HostFacts {
  std::string kernel_cmdline, isolcpus, nohz_full, cpu_governor;
  std::string cpu_model;
  int cpus_online = -1;  // /sys/devices/system/cpu/online
  Hugepages hugepages;
};
HostFacts read_host_facts(const std::string& root);

struct NetdevFacts {
  int mtu = -1;
  int64_t speed_mbps = -1;  // /sys/class/net/<dev>/speed; -1 when down or unknown
  std::string pci_address;  // the netdev's device link, "" for virtual devices
  std::string pci_id;       // vendor:device of that PCI device (the NIC's model), "" when unknown
  PciLink pci;
};
NetdevFacts read_netdev_facts(const std::string& root, const std::string& netdev);

}  // namespace spiral
