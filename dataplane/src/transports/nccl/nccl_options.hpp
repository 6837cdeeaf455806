#pragma once
// The nccl kind's keys (its flags: --op -> op, ...), read once into a struct of its own that the
// kind stores in Cell::options.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "config/object_reader.hpp"
#include "transports/nccl/network_env.hpp"
#include "transports/nccl/sweep_spec.hpp"

namespace spiral::nccl {

struct NcclOptions {
  SweepSpec spec;
  int gpus = 1;        // NCCL ranks of this pod, one process (and GPU) each
  int first_rank = 0;  // the NCCL rank of this pod's first GPU
  int nranks = 1;      // NCCL ranks of the cell, every pod's
  uint32_t bootstrap_timeout_ms = 120000;
  enum class Network { automatic, rdma, socket } network = Network::automatic;
  std::vector<std::string> ib_hcas;  // empty with rdma: the RDMA devices the pod sees
  std::string socket_ifname;
  // rank 0 also writes nccl-tests' JSON (-J) here; "" none (nccl_tests_json.hpp)
  std::string nccl_tests_json;
};

extern const std::set<std::string> kNcclKeys;

NcclOptions parse_nccl_options(const ObjectReader& r, const Cell& c);
const NcclOptions& nccl_options(const Cell& c);
const char* to_string(NcclOptions::Network n);
const char* to_string(Blocking b);      // the key's spelling: "wait_untimed_barrier"
const char* to_string(Registration r);  // "symmetric"

// The RDMA devices this process sees (<sysfs>/class/infiniband/*), sorted: in a pod, those its
// RDMA device resources made visible.
std::vector<std::string> visible_rdma_devices(const std::string& sysfs_root = "/sys");

// What NCCL may use, from the options: explicit ib_hcas, else (network rdma) the visible devices.
NetworkChoice network_choice(const NcclOptions& o, const std::string& sysfs_root = "/sys");

}  // namespace spiral::nccl
