#include "output/environment_json.hpp"

#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>

#include "gpu/nvml_sampler.hpp"
#include "sys/ethtool.hpp"
#include "sys/host_facts.hpp"

#ifndef SPIRAL_REVISION
#define SPIRAL_REVISION "unknown"
#endif

namespace spiral {

using json = nlohmann::ordered_json;

std::vector<std::string> side_netdevs(const Cell& cell, const RunResult& r) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& l : r.links) {
    if (cell.role != Role::server) add(l.tx_netdev);
    if (cell.role != Role::client) add(l.rx_netdev);
  }
  for (const auto& n : cell.netdevs) add(n);
  return out;
}

std::string cuda_version_text(int version) {
  if (version < 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {

json nic_json(const std::string& netdev, const std::string& root) {
  json j = {{"netdev", netdev}};
  const auto info = read_driver_info(netdev);
  j["driver"] = info ? info->driver : "";
  j["driver_version"] = info ? info->version : "";
  j["firmware"] = info ? info->firmware : "";
  j["bus_info"] = info ? info->bus_info : "";
  const NetdevFacts f = read_netdev_facts(root, netdev);
  j["speed_mbps"] = f.speed_mbps;
  j["mtu"] = f.mtu;
  const auto rings = read_ring_sizes(netdev);
  j["rx_ring"] = rings ? int64_t{rings->rx} : -1;
  j["tx_ring"] = rings ? int64_t{rings->tx} : -1;
  j["pci_address"] = f.pci_address;
  j["pci_id"] = f.pci_id;
  j["pcie_width"] = f.pci.width;
  j["pcie_gen"] = f.pci.generation;
  j["numa_node"] = f.pci.numa_node;
  return j;
}

// NVML's "00000000:01:00.0" as sysfs names the device ("0000:01:00.0").
std::string sysfs_pci_address(std::string bus_id) {
  std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(), [](unsigned char c) { return std::tolower(c); });
  if (bus_id.size() == 16 && bus_id[8] == ':') bus_id = bus_id.substr(4);
  return bus_id;
}

void add_gpu(json& j, const std::string& root) {
  gpu::NvmlSampler nvml("");
  if (!nvml.available()) {
    j["gpu"] = nullptr;
    j["gpu_note"] = nvml.status();
    return;
  }
  const auto id = nvml.identity();
  const auto link = nvml.pcie_link();
  const PciLink pci = read_pci_link(root, sysfs_pci_address(id.pci_bus_id));
  j["gpu"] = {{"name", id.name},
              {"driver_version", id.driver_version},
              {"cuda_version", cuda_version_text(id.cuda_driver_version)},
              {"pci_bus_id", id.pci_bus_id},
              {"pcie_width", link.width},
              {"pcie_gen", link.generation},
              {"numa_node", pci.numa_node}};
  j["gpu_note"] = "";
}

// The CPUs this process may run on (a pod's cpuset), -1 when the kernel does not say.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : -1;
}

}  // namespace

json environment_json(const std::vector<std::string>& netdevs, const std::string& root) {
  utsname u{};
  uname(&u);
  const HostFacts host = read_host_facts(root);
  json j = {{"dataplane_version", SPIRAL_VERSION},
            {"dataplane_revision", SPIRAL_REVISION},
            {"kernel", u.release},
            {"kernel_cmdline", host.kernel_cmdline},
            {"isolcpus", host.isolcpus},
            {"nohz_full", host.nohz_full},
            {"cpu_governor", host.cpu_governor},
            {"cpu_model", host.cpu_model},
            {"cpus_online", host.cpus_online},
            {"cpus_usable", usable_cpus()},
            {"hugepages_total", host.hugepages.total},
            {"hugepages_free", host.hugepages.free},
            {"hugepage_size_kib", host.hugepages.size_kib}};
  json nics = json::array();
  for (const auto& n : netdevs) nics.push_back(nic_json(n, root));
  j["nics"] = nics;
  add_gpu(j, root);
  return j;
}

json compact_environment(json env, size_t cmdline_max) {
  auto& cmdline = env["kernel_cmdline"];
  if (cmdline.is_string() && cmdline.get<std::string>().size() > cmdline_max)
    cmdline = cmdline.get<std::string>().substr(0, cmdline_max) + "...";
  return env;
}

}  // namespace spiral
