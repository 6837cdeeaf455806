#pragma once
// What NCCL says about itself with NCCL_DEBUG=INFO (its own reporting, read back from the file
// NCCL_DEBUG_FILE names): its version, the network plugin it chose, and for every connection
// between two ranks the transport it picked, from lines such as
//   host:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA
//   host:123:456 [1] NCCL INFO Channel 01 : 2[1] -> 0[0] via SHM/direct/direct
//   host:123:456 [0] NCCL INFO Channel 00/0 : 3[3] -> 2[2] via P2P/CUMEM/read
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spiral::nccl {

// The transport families a user asks about; "net_other" is a network plugin that is neither
// NCCL's IB (verbs: InfiniBand or RoCE) nor its socket transport.
enum class Link { p2p, shm, net_ib, net_socket, net_other, collnet, other };
std::string_view name(Link link);  // "P2P", "SHM", "NET/IB", "NET/Socket", ...

// The wire under a P2P connection, which NCCL's log does not say (gpu_links.hpp finds it).
enum class P2pPath { unknown, nvlink, pcie };

struct Connection {
  int from = 0, to = 0;  // ranks
  Link link = Link::other;
  std::string via;       // NCCL's own words: "NET/IB/0/GDRDMA"
  bool gpu_direct = false;
  int channels = 0;      // how many channel lines named this pair with this transport
  P2pPath path = P2pPath::unknown;  // P2P only
};

// The transport as reported: the family, and for P2P the wire when known: "P2P/NVLink",
// "P2P/PCIe", "P2P" (unknown), "NET/IB", ...
std::string transport_name(const Connection& c);

struct TransportLog {
  std::string nccl_version;              // "2.28.9+cuda13.0"; empty when no version line was seen
  std::string network;                   // "IB", "Socket", or a plugin's name; empty when none used
  std::vector<std::string> net_devices;  // from "NET/IB : Using [0]mlx5_0:1/RoCE ..." (or NET/Socket)
  std::vector<Connection> connections;   // one per (from, to, link), in first-seen order

  // The connections that involve `rank`, one per (peer, link).
  std::vector<Connection> for_rank(int rank) const;
  bool uses(Link link) const;
};

TransportLog parse_transport_log(std::string_view text);

// As the ranks report it to rank 0, and back; merge() adds another rank's connections.
nlohmann::json to_json(const TransportLog& log);
TransportLog transport_log_from_json(const nlohmann::json& j);  // throws RunFailure when malformed
void merge(TransportLog& into, const TransportLog& other);

// Why a cell of `nranks` ranks that required RDMA is Invalid (a connection, or the network, on
// NET/Socket; or, with several ranks, no connection in NCCL's log at all, so nothing confirms
// RDMA), or empty when it ran on RDMA or never needed the network (all peers on P2P/SHM).
std::string rdma_violation(const TransportLog& log, int nranks);

}  // namespace spiral::nccl
