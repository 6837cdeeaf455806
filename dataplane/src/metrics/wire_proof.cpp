#include "metrics/wire_proof.hpp"

namespace spiral {

namespace {
uint64_t minus(uint64_t after, uint64_t before) { return after >= before ? after - before : 0; }
}  // namespace

PhySample phy_sample(const std::optional<std::map<std::string, uint64_t>>& stats, const std::string& why) {
  PhySample s;
  if (!stats) {
    s.note = why.empty() ? "no driver statistics" : why;
    return s;
  }
  auto find = [&](const char* name) -> std::optional<uint64_t> {
    auto it = stats->find(name);
    if (it == stats->end()) return std::nullopt;
    return it->second;
  };
  auto tx = find("tx_bytes_phy"), rx = find("rx_bytes_phy");
  if (!tx || !rx) {
    s.note = "no PHY counters (tx_bytes_phy, rx_bytes_phy) among " + std::to_string(stats->size()) +
             " driver statistics";
    return s;
  }
  s.available = true;
  s.tx_bytes = *tx;
  s.rx_bytes = *rx;
  s.tx_packets = find("tx_packets_phy").value_or(0);
  s.rx_packets = find("rx_packets_phy").value_or(0);
  return s;
}

WireSide wire_delta(std::string address, std::string netdev, const PhySample& before, const PhySample& after) {
  WireSide w;
  w.address = std::move(address);
  w.netdev = std::move(netdev);
  w.available = before.available && after.available;
  if (!w.available) {
    w.note = !before.available ? before.note : after.note;
    return w;
  }
  w.tx_bytes_phy = minus(after.tx_bytes, before.tx_bytes);
  w.rx_bytes_phy = minus(after.rx_bytes, before.rx_bytes);
  w.tx_packets_phy = minus(after.tx_packets, before.tx_packets);
  w.rx_packets_phy = minus(after.rx_packets, before.rx_packets);
  return w;
}

const char* to_string(WireVerdict v) {
  switch (v) {
    case WireVerdict::crossed: return "crossed";
    case WireVerdict::did_not_cross: return "did-not-cross";
    case WireVerdict::unverified: return "unverified";
  }
  return "?";
}

WireCheck check_wire(const WireSide& side, bool transmit, uint64_t app_bytes) {
  WireCheck c;
  c.netdev = side.netdev;
  c.transmit = transmit;
  c.app_bytes = app_bytes;
  if (side.netdev.empty()) {
    c.note = side.note.empty() ? "no interface known for " + side.address : side.note;
    return c;
  }
  if (!side.available) {
    c.note = side.netdev + ": " + (side.note.empty() ? "no PHY counters" : side.note);
    return c;
  }
  c.phy_bytes = transmit ? side.tx_bytes_phy : side.rx_bytes_phy;
  c.verdict = c.phy_bytes >= app_bytes ? WireVerdict::crossed : WireVerdict::did_not_cross;
  return c;
}

WireVerdict overall(const std::vector<WireCheck>& checks) {
  if (checks.empty()) return WireVerdict::unverified;
  WireVerdict v = WireVerdict::crossed;
  for (const auto& c : checks) {
    if (c.verdict == WireVerdict::did_not_cross) return WireVerdict::did_not_cross;
    if (c.verdict == WireVerdict::unverified) v = WireVerdict::unverified;
  }
  return v;
}

uint64_t phy_total(const std::vector<WireCheck>& checks, bool transmit) {
  uint64_t sum = 0;
  for (const auto& c : checks)
    if (c.transmit == transmit && c.verdict != WireVerdict::unverified) sum += c.phy_bytes;
  return sum;
}

std::string wire_invalid_reason(const std::vector<WireCheck>& checks) {
  for (const auto& c : checks)
    if (c.verdict == WireVerdict::did_not_cross)
      return "never crossed the wire: " + c.netdev + (c.transmit ? " tx_bytes_phy +" : " rx_bytes_phy +") +
             std::to_string(c.phy_bytes) + " for " + std::to_string(c.app_bytes) + " application bytes " +
             (c.transmit ? "sent" : "received") + " (a loop inside the NIC or the host never reaches the PHY)";
  return "";
}

std::string wire_note(const std::vector<WireCheck>& checks) {
  if (checks.empty()) return "wire unverified: no interface to read PHY counters from";
  for (const auto& c : checks)
    if (c.verdict == WireVerdict::unverified) return "wire unverified: " + c.note;
  return "";
}

}  // namespace spiral
