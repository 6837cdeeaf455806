#pragma once
// Finds the RDMA device, port and RoCE v2 GID a side uses, and opens it. The netdev the pod was
// given decides (and, when set, the bind address: the GID that carries it); a named device must
// carry that netdev. Every way this can fail is a BadInput with one line saying what to change.
#include <array>
#include <cstdint>
#include <string>

#include "config/cell.hpp"
#include "transports/roce/rdma_options.hpp"
#include "transports/roce/verbs.hpp"

namespace spiral::roce {

struct OpenDevice {
  Context context;
  std::string name;           // rxe0, mlx5_0
  uint8_t port = 1;
  int gid_index = -1;
  std::array<uint8_t, 16> gid{};
  std::string netdev;
  ibv_mtu active_mtu = IBV_MTU_1024;
  uint32_t max_msg_bytes = 0;  // the port's max_msg_sz
  ibv_device_attr attr{};
};

// `bind_address`: this side's IPv4 address, 0.0.0.0 when any will do.
OpenDevice open_device(const RdmaOptions& options, const std::string& bind_address);

uint32_t mtu_bytes(ibv_mtu mtu);
ibv_mtu mtu_from_bytes(uint32_t bytes);  // the largest IB MTU not above `bytes`

}  // namespace spiral::roce
