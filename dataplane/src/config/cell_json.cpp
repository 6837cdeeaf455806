#include "config/cell_json.hpp"

namespace spiral {

const char* to_string(Role r) {
  switch (r) {
    case Role::server: return "server";
    case Role::client: return "client";
    case Role::loopback: return "loopback";
    case Role::rank: return "rank";
  }
  return "?";
}

const char* to_string(Workload w) {
  switch (w) {
    case Workload::none: return "none";
    case Workload::fft: return "fft";
    case Workload::gemm: return "gemm";
    case Workload::gemm_fp16: return "gemm_fp16";
  }
  return "?";
}

nlohmann::json cell_to_json(const Cell& c) {
  nlohmann::json j = {
      {"transport", c.kind->name},
      {"role", to_string(c.role)},
      {"payload_bytes", c.payload_bytes},
      {"pairs", c.pairs},
      {"target_mbps", c.target_mbps},
      {"seconds", static_cast<double>(c.duration_ms) / 1000.0},
      {"warmup_seconds", static_cast<double>(c.warmup_ms) / 1000.0},
      {"repeats", c.repeats},
      {"server_address", c.server_address},
      {"bind_address", c.bind_address},
      {"base_port", c.base_port},
      {"control_port", c.control_port},
      {"connect_timeout_ms", c.connect_timeout_ms},
      {"accept_timeout_ms", c.accept_timeout_ms},
      {"grace_ms", c.grace_ms},
      {"cores",
       {{"master", c.cores.master},
        {"tx", c.cores.tx},
        {"rx", c.cores.rx},
        {"tx_workers", c.cores.tx_workers},
        {"rx_workers", c.cores.rx_workers}}},
      {"tcp_nodelay", c.tcp_nodelay},
      {"udp_gso", c.udp_gso},
      {"udp_gro", c.udp_gro},
      {"socket_buffer_bytes", c.socket_buffer_bytes},
      {"batch", c.batch},
      {"workload", {{"kind", to_string(c.workload)}}},
      {"gemm_n", c.gemm_n},
      {"fft_length", c.fft_length},
      {"workload_batch_bytes", c.workload_batch_bytes},
      {"sync_interval", c.sync_interval},
      {"max_in_flight", c.max_in_flight},
      {"ready_file", c.ready_file},
      {"summary_file", c.summary_file},
      {"csv", c.csv},
      {"csv_file", c.csv_file},
      {"labels", c.labels},
  };
  if (c.kind->cell_json) c.kind->cell_json(c, j);  // its own keys only where parse_cell accepts them
  return j;
}

}  // namespace spiral
