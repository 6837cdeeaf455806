#pragma once
// One link's share of a run over several links (pair i on link i % links): its pairs' bytes and
// its interfaces' wire verdict. Filled by account_links (metrics/link_results.hpp).
#include <cstdint>
#include <string>

#include "metrics/wire_proof.hpp"

namespace spiral {

struct LinkResult {
  std::string address;                   // the server's address of the link
  std::string tx_netdev, rx_netdev;      // the sender's and the receiver's interface
  uint32_t pairs = 0;
  uint64_t tx_bytes = 0, rx_bytes = 0;   // the link's pairs, measured window
  int64_t tx_mbps = 0, rx_mbps = 0;
  uint64_t tx_bytes_phy = 0, rx_bytes_phy = 0;  // PHY deltas of its netdevs (0 when unverified)
  WireVerdict wire = WireVerdict::unverified;
};

}  // namespace spiral
