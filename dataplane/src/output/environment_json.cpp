#include "output/environment_json.hpp"

#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>
#include <iterator>

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

// The PCIe keys of a device: current and maximum link, payload size (bytes), NUMA node.
void add_pcie(json& j, const PciLink& pci) {
  j["pcie_width"] = pci.width;
  j["pcie_gen"] = pci.generation;
  j["pcie_max_width"] = pci.max_width;
  j["pcie_max_gen"] = pci.max_generation;
  j["pcie_downtrained"] = pci.downtrained();
  j["pcie_mps"] = pci.mps_bytes;
  j["pcie_mps_max"] = pci.mps_max_bytes;
  j["numa_node"] = pci.numa_node;
}

json nic_json(const std::string& netdev, const std::string& root) {
  json j = {{"netdev", netdev}};
  const auto info = read_driver_info(netdev);
  j["driver"] = info ? info->driver : "";
  j["driver_version"] = info ? info->version : "";
  j["firmware"] = info ? info->firmware : "";
  j["bus_info"] = info ? info->bus_info : "";
  const NetdevFacts f = read_netdev_facts(root, netdev);
  j["speed_mbps"] = f.speed_mbps;
  const auto speeds = read_link_speeds(netdev);
  j["speed_max_mbps"] = speeds ? speeds->max_mbps : -1;
  j["speed_max_note"] = !speeds                  ? "the device does not answer ETHTOOL_GLINKSETTINGS"
                        : speeds->max_mbps < 0 ? "no speed among its supported link modes (a virtual device)"
                                               : "";
  j["mtu"] = f.mtu;
  const auto rings = read_ring_sizes(netdev);
  j["rx_ring"] = rings ? int64_t{rings->rx} : -1;
  j["tx_ring"] = rings ? int64_t{rings->tx} : -1;
  j["pci_address"] = f.pci_address;
  j["pci_id"] = f.pci_id;
  add_pcie(j, f.pci);
  return j;
}

void add_gpu(json& j, const std::string& root) {
  gpu::NvmlSampler nvml("");
  if (!nvml.available()) {
    j["gpu"] = nullptr;
    j["gpu_note"] = nvml.status();
    j["gpus"] = nullptr;
    j["gpus_note"] = "not available: " + nvml.status();
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
  const auto gpus = nvml.visible_gpus();
  j["gpus"] = json::array();
  j["gpus_note"] = gpus ? "" : "not available: NVML cannot count its devices";
  if (gpus)
    for (const auto& g : *gpus) j["gpus"].push_back(gpu_facts_json(g, root));
}

}  // namespace

// NVML's "00000000:01:00.0" as sysfs names the device ("0000:01:00.0").
std::string sysfs_pci_address(std::string bus_id) {
  std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(), [](unsigned char c) { return std::tolower(c); });
  if (bus_id.size() == 16 && bus_id[8] == ':') bus_id = bus_id.substr(4);
  return bus_id;
}

json gpu_facts_json(const gpu::NvmlSampler::GpuFacts& g, const std::string& root) {
  PciLink pci = read_pci_link(root, sysfs_pci_address(g.pci_bus_id));
  // NVML's link where sysfs has none (a container without the host's /sys/bus/pci).
  if (pci.width < 0 && pci.max_width < 0) {
    pci.width = g.pcie.width, pci.generation = g.pcie.generation;
    pci.max_width = g.pcie.max_width, pci.max_generation = g.pcie.max_generation;
  }
  json j = {{"pci_address", pci.address}};
  add_pcie(j, pci);
  j["pstate"] = g.pstate;
  j["nvlinks"] = g.nvlinks;
  j["nvlinks_active"] = g.nvlinks_active;
  j["nvlink_mbyte_s"] = g.nvlink_mbyte_s;
  j["retired_pages"] = g.retired_pages;
  j["retired_pending"] = g.retired_pending;
  j["remapped_rows"] = g.remapped_rows;
  j["remap_pending"] = g.remap_pending;
  return j;
}

namespace {

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
  // The summary holds 4 KiB in all: the NICs lose what the record keeps in words, and each GPU
  // becomes one row of numbers (kCompactGpuColumns), its NVLinks' rates their slowest.
  if (env["nics"].is_array())
    for (auto& nic : env["nics"]) {
      nic.erase("speed_max_note");
      nic.erase("pcie_downtrained");
      nic.erase("bus_info");
    }
  if (env["gpus"].is_array()) {
    json rows = json::array();
    for (const auto& g : env["gpus"]) {
      int64_t slowest = -1;
      for (const auto& rate : g["nvlink_mbyte_s"])
        if (rate.get<int64_t>() >= 0 && (slowest < 0 || rate.get<int64_t>() < slowest)) slowest = rate.get<int64_t>();
      json row = json::array({g["pci_address"]});
      for (size_t c = 1; c < std::size(kCompactGpuColumns); ++c) {
        const std::string key = kCompactGpuColumns[c];
        row.push_back(key == "nvlink_mbyte_s_min" ? json(slowest) : g.value(key, json(-1)));
      }
      rows.push_back(row);
    }
    env["gpus"] = rows;
  }
  return env;
}

}  // namespace spiral
