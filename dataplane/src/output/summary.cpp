#include "output/summary.hpp"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace spiral {

std::string summary_text(const Cell& cell, const RunResult& r) {
  nlohmann::ordered_json j = {
      {"v", 1},
      {"transport", to_string(cell.transport)},
      {"role", to_string(cell.role)},
      {"state", to_string(r.state)},
      {"reason", ""},
      {"seconds_milli", r.seconds_milli},
      {"payload_bytes", cell.payload_bytes},
      {"pairs", cell.pairs},
      {"target_mbps", cell.target_mbps},
      {"tx_packets", r.tx_packets},
      {"tx_bytes", r.tx_bytes},
      {"rx_packets", r.rx_packets},
      {"rx_bytes", r.rx_bytes},
      {"pps", r.pps},
      {"tx_mbps", r.tx_mbps},
      {"rx_mbps", r.rx_mbps},
      {"drops", r.drops},
      {"drops_kind", r.drops_kind},
      {"loss_ppm", r.loss_ppm},
      {"lost", r.lost},
      {"reordered", r.reordered},
      {"duplicated", r.duplicated},
      {"kernel_drops", r.kernel_drops},
      {"cpu_master_mpct", r.cpu_master_mpct},
      {"cpu_tx_mpct", r.cpu_tx_mpct},
      {"cpu_rx_mpct", r.cpu_rx_mpct},
      {"gpu_sm_mpct", -1},
      {"gpu_mem_mpct", -1},
  };
  std::string reason = r.reason;
  // The reason is the only unbounded field: cut it until the whole object fits. Escaping can
  // make the cut text longer than its byte count, so measure the dump each time.
  for (;;) {
    j["reason"] = reason;
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() <= kSummaryMaxBytes || reason.empty()) return text;
    const size_t cut = text.size() - kSummaryMaxBytes + 3;
    reason = cut >= reason.size() ? "" : reason.substr(0, reason.size() - cut) + "...";
  }
}

bool write_summary(const Cell& cell, const RunResult& r) {
  if (cell.summary_file.empty()) return true;
  // Plain truncate-and-write: /dev/termination-log is a bind mount that a rename cannot replace.
  std::ofstream out(cell.summary_file, std::ios::trunc);
  out << summary_text(cell, r);
  out.close();
  if (!out) {
    std::cerr << "spiral-dataplane: cannot write summary_file \"" << cell.summary_file << "\"\n";
    return false;
  }
  return true;
}

}  // namespace spiral
