#include "output/record_json.hpp"

#include <sys/utsname.h>

#include "config/cell_json.hpp"

namespace spiral {

using json = nlohmann::ordered_json;

namespace {
json host_info() {
  utsname u{};
  uname(&u);
  return {{"hostname", u.nodename}, {"kernel", u.release}, {"machine", u.machine}};
}

}  // namespace

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
          {"host", host_info()}};
  if (cell.kind->record_fields) cell.kind->record_fields(cell, r, record);
  return record;
}

}  // namespace spiral
