// The forward mode's accounting and verdict (pure: unit-tested without DPDK).
#include "transports/raw/forward_result.hpp"

namespace spiral {

void forward_rates(ForwardFigures& f, const RunResult& r) {
  if (r.seconds_milli <= 0) return;
  const double seconds = double(r.seconds_milli) / 1e3;
  // L2 frame bytes, as the raw transport counts everywhere (no preamble, FCS or gap)
  f.offered_gbps = double(r.tx_bytes) * 8 / seconds / 1e9;
  f.forwarded_gbps = double(r.rx_bytes) * 8 / seconds / 1e9;
  f.offered_mpps = double(r.tx_packets) / seconds / 1e6;
  f.forwarded_mpps = double(r.rx_packets) / seconds / 1e6;
}

std::string forward_invalid_reason(const ForwardFigures& f) {
  if (!f.enabled) return "";
  const uint64_t back = f.mac_as_sent + f.mac_swapped + f.mac_other;
  if (back == 0) return "";  // nothing came back: the loss says so
  const bool swap = f.work != "none";
  const uint64_t wrong = f.mac_other + (swap ? f.mac_as_sent : f.mac_swapped);
  if (wrong)
    return "forward_work " + f.work + ": " + std::to_string(wrong) + " of " + std::to_string(back) +
           " frames came back with " + (swap ? "their MACs not swapped" : "their MACs changed") +
           " (as sent " + std::to_string(f.mac_as_sent) + ", swapped " + std::to_string(f.mac_swapped) + ", other " +
           std::to_string(f.mac_other) + ")";
  if (swap && f.sender_mac == f.receiver_mac)
    return "forward_work " + f.work + ": tx_port and rx_port have the same MAC " + f.sender_mac +
           ", so a swap cannot be seen; give the ports distinct MACs (memif: mac=)";
  if (!f.gpu_stopped_cleanly)
    return "forward_work " + f.work + ": the GPU work did not stop within 2 s at the end of the run";
  return "";
}

}  // namespace spiral
