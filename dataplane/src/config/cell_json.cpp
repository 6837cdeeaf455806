#include "config/cell_json.hpp"

namespace spiral {

const char* to_string(Transport t) {
  switch (t) {
    case Transport::tcp: return "tcp";
    case Transport::udp: return "udp";
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

const char* to_string(RdmaOptions::Memory m) {
  switch (m) {
    case RdmaOptions::Memory::host: return "host";
    case RdmaOptions::Memory::host_pinned: return "host_pinned";
    case RdmaOptions::Memory::device: return "device";
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

const char* to_string(Workload) { return "none"; }

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
      {"ready_file", c.ready_file},
      {"summary_file", c.summary_file},
      {"csv", c.csv},
      {"csv_file", c.csv_file},
      {"labels", c.labels},
  };
  if (c.transport == Transport::roce) {
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
