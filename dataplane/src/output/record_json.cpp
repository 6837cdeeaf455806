#include "output/record_json.hpp"

#include <sys/utsname.h>

#include "config/cell_json.hpp"
#include "output/search_json.hpp"

namespace spiral {

using json = nlohmann::ordered_json;

namespace {
json host_info() {
  utsname u{};
  uname(&u);
  return {{"hostname", u.nodename}, {"kernel", u.release}, {"machine", u.machine}};
}

}  // namespace

json wire_checks_json(const std::vector<WireCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks)
    out.push_back({{"netdev", c.netdev},
                   {"direction", c.transmit ? "tx" : "rx"},
                   {"wire", to_string(c.verdict)},
                   {"phy_bytes", c.phy_bytes},
                   {"app_bytes", c.app_bytes},
                   {"note", c.note}});
  return out;
}

json links_json(const std::vector<LinkResult>& links) {
  json out = json::array();
  for (size_t k = 0; k < links.size(); ++k) {
    const LinkResult& l = links[k];
    out.push_back({{"link", k},
                   {"address", l.address},
                   {"tx_netdev", l.tx_netdev},
                   {"rx_netdev", l.rx_netdev},
                   {"pairs", l.pairs},
                   {"tx_bytes", l.tx_bytes},
                   {"rx_bytes", l.rx_bytes},
                   {"tx_mbps", l.tx_mbps},
                   {"rx_mbps", l.rx_mbps},
                   {"tx_bytes_phy", l.tx_bytes_phy},
                   {"rx_bytes_phy", l.rx_bytes_phy},
                   {"wire", to_string(l.wire)}});
  }
  return out;
}

json result_record(const Cell& cell, const RunResult& r) {
  json pairs = json::array();
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const PairResult& p = r.pairs[i];
    pairs.push_back({{"pair", i},
                     {"tx_packets", p.tx_packets},
                     {"tx_bytes", p.tx_bytes},
                     {"rx_packets", p.rx_packets},
                     {"rx_bytes", p.rx_bytes},
                     {"lost", p.lost},
                     {"reordered", p.reordered},
                     {"duplicated", p.duplicated},
                     {"kernel_drops", p.kernel_drops},
                     {"tcp_retrans", p.retrans}});
  }
  json cores = json::array();
  for (const auto& c : r.cores) cores.push_back({{"core", c.core}, {"role", c.role}, {"busy_mpct", c.busy_mpct}});
  json record = {{"event", "result"},
          {"v", 1},
          {"version", SPIRAL_VERSION},
          {"transport", cell.kind->name},
          {"role", to_string(cell.role)},
          {"state", to_string(r.state)},
          {"reason", r.reason},
          {"labels", cell.labels},
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
          {"tx_gbps", r.tx_gbps},
          {"rx_gbps", r.rx_gbps},
          {"drops", r.drops},
          {"drops_kind", r.drops_kind},
          {"loss_ppm", r.loss_ppm},
          {"lost", r.lost},
          {"reordered", r.reordered},
          {"duplicated", r.duplicated},
          {"stale", r.stale},
          {"malformed", r.malformed},
          {"foreign", r.foreign},
          {"kernel_drops", r.kernel_drops},
          {"tcp_retrans", r.retrans},
          {"tcp_segs_out", r.segs_out},
          {"send_errors", r.send_errors},
          {"rx_recv_calls", r.rx_recv_calls},
          {"rx_recv_ns", r.rx_recv_ns},
          {"tx_bytes_all", r.tx_bytes_all},
          {"rx_bytes_all", r.rx_bytes_all},
          {"cpu_master_mpct", r.cpu_master_mpct},
          {"cpu_tx_mpct", r.cpu_tx_mpct},
          {"cpu_rx_mpct", r.cpu_rx_mpct},
          {"cpu_cores", cores},
          {"gpu_sm_mpct", r.gpu.sm_mpct},
          {"gpu_mem_mpct", r.gpu.mem_mpct},
          {"gpu_stalls", r.gpu.counters.stalls},
          {"gpu", r.gpu.used() ? json(gpu::to_json(r.gpu)) : json(nullptr)},
          {"pair_results", pairs},
          {"cell", json(cell_to_json(cell))},
          {"host", host_info()},
          {"wire", r.wire},
          {"wire_note", r.wire_note},
          {"tx_bytes_phy", phy_total(r.wire_checks, true)},
          {"rx_bytes_phy", phy_total(r.wire_checks, false)},
          {"wire_checks", wire_checks_json(r.wire_checks)},
          {"links", links_json(r.links)},
          {"environment", r.environment}};
  if (r.search) record["search"] = search_record(*r.search);
  if (cell.kind->record_fields) cell.kind->record_fields(cell, r, record);
  return record;
}

}  // namespace spiral
