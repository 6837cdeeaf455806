#pragma once
// The host environment a result depends on, captured once per run on the side asked for it
// (cell key "environment"): NIC driver, firmware, link, rings, PCIe and NUMA of this side's link
// interfaces, kernel and its command line, isolated cores, CPU governor, huge pages, the GPU as
// NVML names it, and this binary's version and revision. Every key: docs/dataplane.md
// "Environment".
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

// This side's link interfaces in r.links (the receiver's for a server, the sender's for a
// client, both for one process holding both sides), each once.
std::vector<std::string> side_netdevs(const Cell& cell, const RunResult& r);

// root: "" for the real /proc and /sys (a directory of captured files in tests).
nlohmann::ordered_json environment_json(const std::vector<std::string>& netdevs, const std::string& root = "");

// The same, with the kernel command line cut to `cmdline_max` characters (the summary's budget).
nlohmann::ordered_json compact_environment(nlohmann::ordered_json env, size_t cmdline_max = 256);

// NVML's CUDA driver version integer as text: 12080 -> "12.8"; "" for -1.
std::string cuda_version_text(int version);

}  // namespace spiral
