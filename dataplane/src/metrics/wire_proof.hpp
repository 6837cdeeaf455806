#pragma once
// Proof that the measured bytes crossed the cable: the NIC's PHY counters (ethtool -S *_phy,
// counted by the port itself, so RDMA and kernel-bypass traffic are in them and a loop inside
// the NIC is not) sampled at both ends of the measured window, against the application's bytes.
// Pure: samples in, verdict out (sys/ethtool.hpp reads the counters).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spiral {

// One netdev's port counters at one instant. available=false: the device has none (veth, lo,
// DPDK virtual devices), and note says why.
struct PhySample {
  bool available = false;
  uint64_t tx_bytes = 0, rx_bytes = 0, tx_packets = 0, rx_packets = 0;
  std::string note;
};

// The port counters out of a driver's statistics (mlx5: tx_bytes_phy, rx_bytes_phy,
// tx_packets_phy, rx_packets_phy); `why` explains a missing statistics set.
PhySample phy_sample(const std::optional<std::map<std::string, uint64_t>>& stats, const std::string& why);

// One side's end of one link over the window: its netdev and how far its PHY counters moved.
struct WireSide {
  std::string address;  // the link's server address (what the client connects to)
  std::string netdev;   // this side's interface carrying the link, "" when not known
  bool available = false;
  uint64_t tx_bytes_phy = 0, rx_bytes_phy = 0, tx_packets_phy = 0, rx_packets_phy = 0;  // deltas
  std::string note;     // why unavailable
};
WireSide wire_delta(std::string address, std::string netdev, const PhySample& before, const PhySample& after);

enum class WireVerdict { crossed, did_not_cross, unverified };
const char* to_string(WireVerdict v);  // "crossed" | "did-not-cross" | "unverified"

// One direction on one netdev: the sender's TX or the receiver's RX PHY bytes against the
// application bytes of every link that netdev carries.
struct WireCheck {
  std::string netdev;
  bool transmit = true;  // tx_bytes_phy of the sender, else rx_bytes_phy of the receiver
  WireVerdict verdict = WireVerdict::unverified;
  uint64_t phy_bytes = 0, app_bytes = 0;
  std::string note;
};
// Crossed when the PHY bytes advanced by at least the application's bytes (the PHY counts
// every header on top, so an honest wire always shows more); unverified without counters.
WireCheck check_wire(const WireSide& side, bool transmit, uint64_t app_bytes);

// The run's verdict: did-not-cross if any check did, unverified if any could not tell (or there
// were none), else crossed.
WireVerdict overall(const std::vector<WireCheck>& checks);

// PHY bytes of every distinct netdev checked in one direction (unverified ones count 0).
uint64_t phy_total(const std::vector<WireCheck>& checks, bool transmit);

// The Invalid reason for a did-not-cross run ("" otherwise), naming the first failing check;
// the note of an unverified one ("wire unverified: ...") for the record.
std::string wire_invalid_reason(const std::vector<WireCheck>& checks);
std::string wire_note(const std::vector<WireCheck>& checks);

}  // namespace spiral
