#pragma once
// What the two ends of a queue pair tell each other before it can connect, over a TCP
// connection of its own on base_port + i (the same ports the socket transports use): QP number,
// starting PSN, GID, MTU, and where the peer may write or read (address, rkey, slots). The
// server answers only after its receives are posted, so the client never sends into nothing.
// The same connection carries the client's "fin" (how many messages it posted) at the end.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "config/cell.hpp"

namespace spiral::roce {

struct PeerInfo {
  uint32_t queue = 0;        // queue pair index within the cell
  std::string verb, mode;    // must match on both ends
  uint32_t payload_bytes = 0;
  bool verify_payload = false;
  uint32_t qp_num = 0;
  uint32_t psn = 0;          // 24 bits
  std::array<uint8_t, 16> gid{};
  uint32_t mtu_bytes = 0;    // the port's active MTU (256..4096)
  uint64_t addr = 0;         // start of the peer-accessible slots
  uint32_t rkey = 0;
  uint32_t slots = 0;        // peer-accessible slots
  uint64_t slot_stride = 0;
  uint32_t rx_window = 0;    // receives kept posted
};

nlohmann::json to_message(const PeerInfo& p);  // {"type": "qp", ...}
// Throws RunFailure naming what is missing or malformed.
PeerInfo peer_from_message(const nlohmann::json& m);
// Empty when the two ends describe the same run, else what differs (from the server's view).
std::string peer_mismatch(const PeerInfo& server, const PeerInfo& client);

// "fin": the client posted `messages` in all; the server is finished once that many arrived.
nlohmann::json fin_message(uint64_t messages);

// The GID as an IPv6 address (::ffff:10.0.0.1 for an IPv4-mapped RoCE v2 GID).
std::string gid_text(const std::array<uint8_t, 16>& gid);

}  // namespace spiral::roce
