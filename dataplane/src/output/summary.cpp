#include "output/summary.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "output/environment_json.hpp"
#include "output/record_json.hpp"
#include "output/search_json.hpp"
#include "metrics/latency_json.hpp"

namespace spiral {

std::string summary_text(const Cell& cell, const RunResult& r, size_t max_bytes) {
  nlohmann::ordered_json j = {
      {"v", 1},
      {"transport", cell.kind->name},
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
      {"retrans", r.retrans},
      {"cpu_master_mpct", r.cpu_master_mpct},
      {"cpu_tx_mpct", r.cpu_tx_mpct},
      {"cpu_rx_mpct", r.cpu_rx_mpct},
      {"gpu_sm_mpct", r.gpu.sm_mpct},
      {"gpu_mem_mpct", r.gpu.mem_mpct},
      {"gpu_stalls", r.gpu.counters.stalls},
  };
  j["wire"] = r.wire;
  j["wire_note"] = r.wire_note.substr(0, 200);
  j["tx_bytes_phy"] = phy_total(r.wire_checks, true);
  j["rx_bytes_phy"] = phy_total(r.wire_checks, false);
  if (r.links.size() > 1) j["links"] = links_json(r.links);
  if (!r.environment.is_null()) j["env"] = compact_environment(r.environment);
  if (r.search) j["search"] = search_summary(*r.search);
  if (cell.kind->latency)
    if (const LatencySummary* l = cell.kind->latency(cell, r)) add_latency_summary_fields(*l, j);
  if (cell.kind->summary_fields) cell.kind->summary_fields(cell, r, j);
  auto dump_with = [&](const std::string& reason) {
    j["reason"] = reason;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  // A search's compact trial list gives way first (the record keeps every trial), leaving room
  // for 100 characters of the reason: halve it until the summary fits its share.
  for (size_t keep = kSummaryMaxTrials; r.search && keep > 0 && dump_with(r.reason.substr(0, 100)).size() > max_bytes;) {
    keep = keep > 4 ? keep / 2 : keep - 1;
    j["search"] = search_summary(*r.search, keep);
  }
  std::string text = dump_with(r.reason);
  if (text.size() <= max_bytes) return text;
  // Past the budget even without a reason: the environment, the per-link rows, then the wire
  // note go first (the record on stdout keeps them all).
  for (const char* bulky : {"env", "links", "wire_note"})
    if (dump_with("").size() > max_bytes) j.erase(bulky);
  // The reason is the only unbounded field: keep its longest prefix that fits. Escaping makes
  // the cost per character uneven, so search on the dumped size.
  size_t fits = 0, too_long = r.reason.size();
  while (too_long - fits > 1) {
    const size_t mid = (fits + too_long) / 2;
    (dump_with(r.reason.substr(0, mid) + "...").size() <= max_bytes ? fits : too_long) = mid;
  }
  return dump_with(r.reason.substr(0, fits) + "...");
}

bool write_summary(const Cell& cell, const RunResult& r, uint32_t repeat_index) {
  if (cell.summary_file.empty()) return true;
  // Plain truncate-and-write: /dev/termination-log is a bind mount that a rename cannot replace.
  // Lines are separated by '\n'; each repeat has an equal share of the 4096 bytes.
  const size_t share = kSummaryMaxBytes / std::max<uint32_t>(cell.repeats, 1) - (cell.repeats > 1 ? 1 : 0);
  std::ofstream out(cell.summary_file, repeat_index == 0 ? std::ios::trunc : std::ios::app);
  if (repeat_index > 0) out << '\n';
  out << summary_text(cell, r, share);
  out.close();
  if (!out) {
    std::cerr << "spiral-dataplane: cannot write summary_file \"" << cell.summary_file << "\"\n";
    return false;
  }
  return true;
}

}  // namespace spiral
