#include "metrics/verdict.hpp"

#include "transports/raw/raw_result.hpp"
#include "transports/roce/rdma_accounting.hpp"

namespace spiral {

namespace {
Verdict invalid(std::string reason) { return {RunState::invalid, std::move(reason)}; }
}  // namespace

Verdict judge(const Cell& cell, const RunResult& r) {
  if (!r.problems.empty()) return invalid("counters inconsistent: " + r.problems.front());
  if (r.tx_bytes == 0) return invalid("no bytes sent in the measured window");
  if (r.rx_bytes == 0) return invalid("no bytes received in the measured window");
  if (cell.transport == Transport::tcp) {
    if (!r.rx_finished) return invalid("receiver did not reach the end of every stream within grace_ms");
    if (r.tx_bytes_all != r.rx_bytes_all)
      return invalid("counters inconsistent: sender wrote " + std::to_string(r.tx_bytes_all) +
                     " bytes, receiver read " + std::to_string(r.rx_bytes_all));
  } else if (cell.transport == Transport::roce) {
    if (auto reason = roce::verdict(cell, r)) return invalid(*reason);
  } else {
    if (r.malformed) return invalid(std::to_string(r.malformed) + " datagrams arrived with the wrong length");
    // A paced cell measures a rate only if the sender held it (5 % slack for timer granularity).
    if (cell.target_mbps && r.tx_mbps * 100 < static_cast<int64_t>(cell.target_mbps) * 95)
      return invalid("sender reached " + std::to_string(r.tx_mbps) + " of the " + std::to_string(cell.target_mbps) +
                     " Mb/s target");
  }
  if (cell.transport == Transport::raw) {
    if (std::string why = raw::raw_invalid_reason(r); !why.empty()) return invalid(why);
  }
  return {};
}

}  // namespace spiral
