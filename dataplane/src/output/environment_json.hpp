#pragma once
// The host environment a result depends on, captured once per run on the side asked for it
// (cell key "environment"): NIC driver, firmware, link, rings, PCIe and NUMA of this side's link
// interfaces (current and maximum speed and PCIe link), kernel and its command line, isolated
// cores, CPU governor, huge pages, the GPU as NVML names it, every GPU the process sees (PCIe,
// NVLink, ECC retirement), and this binary's version and revision. Every key: docs/dataplane.md
// "Environment".
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "gpu/nvml_sampler.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

// This side's link interfaces in r.links (the receiver's for a server, the sender's for a
// client, both for one process holding both sides), each once.
std::vector<std::string> side_netdevs(const Cell& cell, const RunResult& r);

// root: "" for the real /proc and /sys (a directory of captured files in tests).
nlohmann::ordered_json environment_json(const std::vector<std::string>& netdevs, const std::string& root = "");

// The columns of a GPU's row in the compact environment, in order (pkg/summary reads them).
inline constexpr const char* kCompactGpuColumns[] = {
    "pci_address", "pcie_gen",      "pcie_max_gen",       "pcie_width",    "pcie_max_width",
    "pcie_mps",    "pcie_mps_max",  "pstate",             "nvlinks",       "nvlinks_active",
    "nvlink_mbyte_s_min", "retired_pages", "retired_pending", "remapped_rows", "remap_pending"};

// The same for the summary's budget: the kernel command line cut to `cmdline_max` characters,
// the NICs without their notes, each GPU one row of kCompactGpuColumns.
nlohmann::ordered_json compact_environment(nlohmann::ordered_json env, size_t cmdline_max = 256);

// NVML's "00000000:01:00.0" as sysfs names the device ("0000:01:00.0").
std::string sysfs_pci_address(std::string bus_id);

// One visible GPU's keys: its PCIe link from sysfs under `root` (NVML's where sysfs has none),
// performance state, NVLinks and ECC page retirement / row remapping.
nlohmann::ordered_json gpu_facts_json(const gpu::NvmlSampler::GpuFacts& g, const std::string& root = "");

// NVML's CUDA driver version integer as text: 12080 -> "12.8"; "" for -1.
std::string cuda_version_text(int version);

}  // namespace spiral
