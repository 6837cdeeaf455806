#include "config/cell_json.hpp"

namespace spiral {

const char* to_string(Transport t) {
  switch (t) {
    case Transport::tcp: return "tcp";
    case Transport::udp: return "udp";
    case Transport::raw: return "raw";
    case Transport::roce: return "roce";
  }
  return "?";
}

const char* to_string(RdmaOptions::Verb v) {
  switch (v) {
    case RdmaOptions::Verb::send: return "send";
    case RdmaOptions::Verb::write: return "write";
    case RdmaOptions::Verb::read: return "read";
  }
  return "?";
}

const char* to_string(RdmaOptions::Mode m) { return m == RdmaOptions::Mode::latency ? "latency" : "bandwidth"; }

const char* to_string(BufferMemory m) {
  switch (m) {
    case BufferMemory::host: return "host";
    case BufferMemory::host_pinned: return "host_pinned";
    case BufferMemory::device: return "device";
  }
  return "?";
}

const char* to_string(Role r) {
  switch (r) {
    case Role::server: return "server";
    case Role::client: return "client";
    case Role::loopback: return "loopback";
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
      {"transport", to_string(c.transport)},
      {"role", to_string(c.role)},
      {"payload_bytes", c.payload_bytes},
      {"pairs", c.pairs},
      {"target_mbps", c.target_mbps},
      {"seconds", static_cast<double>(c.duration_ms) / 1000.0},
      {"warmup_seconds", static_cast<double>(c.warmup_ms) / 1000.0},
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
  if (c.transport == Transport::raw) {  // raw keys only where parse_cell accepts them
    j["tx_port"] = c.raw.tx_port;
    j["rx_port"] = c.raw.rx_port;
    j["tx_queues"] = c.raw.tx_queues;
    j["rx_queues"] = c.raw.rx_queues;
    j["memory"] = to_string(c.raw.memory);
    j["ring_descriptors"] = c.raw.ring_descriptors;
    j["pool_buffers"] = c.raw.pool_buffers;
    j["no_huge"] = c.raw.no_huge;
  }
  if (c.transport == Transport::roce) {  // roce keys only where parse_cell accepts them
    j["queue_pairs"] = c.pairs;
    j["verb"] = to_string(c.rdma.verb);
    j["mode"] = to_string(c.rdma.mode);
    j["tx_depth"] = c.rdma.tx_depth;
    j["rx_depth"] = c.rdma.rx_depth;
    j["memory"] = to_string(c.rdma.memory);
    j["rdma_device"] = c.rdma.device;
    j["netdev"] = c.rdma.netdev;
    j["verify_payload"] = c.rdma.verify_payload;
  }
  return j;
}

}  // namespace spiral
