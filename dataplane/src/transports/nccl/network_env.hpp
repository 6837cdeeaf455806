#pragma once
// Which network NCCL may use, from what the pod was given: its RDMA devices (the RDMA device
// plugin's resources) become NCCL_IB_HCA, its secondary (Multus) interface NCCL_SOCKET_IFNAME.
// NCCL reads its environment once, at its first call, so this is applied before any NCCL call.
#include <string>
#include <utility>
#include <vector>

namespace spiral::nccl {

struct NetworkChoice {
  std::vector<std::string> rdma_devices;  // "mlx5_0", "rocep1s0f0"; empty: NCCL's own choice
  std::string socket_interface;           // "net1"; empty: NCCL's own choice
  bool require_rdma = false;              // a connection over NET/Socket makes the cell Invalid
  bool disable_ib = false;                // sockets only (NCCL_IB_DISABLE=1)
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// The variables for one rank; `debug_file` receives NCCL's INFO log, read back afterwards for
// the transports it chose. Device and interface names match exactly ("=" prefix), so mlx5_1 does
// not also select mlx5_10. Throws BadInput on names NCCL could not take (commas, spaces).
EnvList nccl_environment(const NetworkChoice& network, const std::string& debug_file);

// setenv() each, replacing what the process had.
void apply_environment(const EnvList& env);

}  // namespace spiral::nccl
