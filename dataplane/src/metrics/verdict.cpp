#include "metrics/verdict.hpp"

namespace spiral {

namespace {
Verdict invalid(std::string reason) { return {RunState::invalid, std::move(reason)}; }
}  // namespace

Verdict judge(const Cell& cell, const RunResult& r) {
  if (!r.problems.empty()) return invalid("counters inconsistent: " + r.problems.front());
  if (r.tx_bytes == 0) return invalid("no bytes sent in the measured window");
  if (r.rx_bytes == 0) return invalid("no bytes received in the measured window");
  if (std::string wire = wire_invalid_reason(r.wire_checks); !wire.empty()) return invalid(wire);
  if (cell.kind->verdict)
    if (auto reason = cell.kind->verdict(cell, r)) return invalid(*reason);
  return {};
}

std::optional<std::string> datagram_verdict(const Cell& cell, const RunResult& r) {
  if (r.malformed) return std::to_string(r.malformed) + " datagrams arrived with the wrong length";
  // A paced cell measures a rate only if the sender held it (5 % slack for timer granularity).
  if (cell.target_mbps && r.tx_mbps * 100 < static_cast<int64_t>(cell.target_mbps) * 95)
    return "sender reached " + std::to_string(r.tx_mbps) + " of the " + std::to_string(cell.target_mbps) +
           " Mb/s target";
  return std::nullopt;
}

}  // namespace spiral
