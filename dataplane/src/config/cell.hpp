#pragma once
// One benchmark cell, parsed and validated once at the edge (cell_parse.cpp). Everything after
// the edge reads these plain values and never parses again.
#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/rate_search_spec.hpp"
#include "kinds/bench_kind.hpp"

namespace spiral {

enum class Role { server, client, loopback, rank };
enum class Workload { none, fft, gemm, gemm_fp16 };  // GPU work on the received data (src/gpu/)

const char* to_string(Role r);
const char* to_string(Workload w);

struct CoreMap {
  int master = -1;              // -1: unpinned
  std::vector<int> tx, rx;      // queue (pair) i uses list[i % size]; empty: unpinned
  // The kind's own core lists (its core_list flags' keys, raw's "tx_workers"), by key; a list the
  // cell leaves out is absent.
  std::map<std::string, std::vector<int>> own;

  // The kind's own list `key`, empty when the cell left it out.
  const std::vector<int>& list(const std::string& key) const {
    static const std::vector<int> none;
    auto it = own.find(key);
    return it == own.end() ? none : it->second;
  }
  // Core for queue `index` from `list`, -1 when the list is empty.
  static int for_queue(const std::vector<int>& list, uint32_t index) {
    return list.empty() ? -1 : list[index % list.size()];
  }
};

struct Cell {
  const BenchKind* kind = nullptr;  // the cell's "transport" (kinds/registry.hpp); set by parse_cell
  Role role = Role::server;
  uint32_t payload_bytes = 8000;    // bytes per message: per send() on a stream, per datagram (header included)
  uint32_t pairs = 1;               // sender/receiver pairs (sockets, queue pairs), one thread each side
  uint64_t target_mbps = 0;         // aggregate pacing target of datagram kinds; 0 = unpaced
  uint64_t duration_ms = 10000;     // measured window ("seconds")
  uint64_t warmup_ms = 2000;        // before the window, excluded from the numbers
  // Runs of the cell back to back in this process (each with its warm-up and window, each with
  // its own record and summary line): the operator's grouped repeats. Kinds that can start only
  // once per process (DPDK's EAL) or run as ranks take 1 (BenchKind::repeats_in_one_process).
  uint32_t repeats = 1;
  std::string server_address = "127.0.0.1";
  std::string bind_address = "0.0.0.0";
  // Several links at once (docs/wire.md "Several links"): pair i connects to
  // server_addresses[i % n] and belongs to link i % n. Empty: one link, server_address.
  std::vector<std::string> server_addresses;
  // This side's interface per link, for its PHY counters; empty: found from the link's address.
  std::vector<std::string> netdevs;
  bool environment = false;         // capture the host environment into the record and summary
  // Also write the capture, gzip+base64 in at most 4096 bytes, to this file (the operator's
  // relay container carries it in its own termination message: output/environment_message.hpp).
  std::string environment_file;
  // The operator's rendezvous (control/rendezvous.hpp), host:port; empty: none. rendezvous_key is
  // rank 0's pod UID; announce_address is rank 0's own address, which it announces once it
  // listens. The other ranks, without announce_address, wait there for it. The parser splits
  // rendezvous into rendezvous_host and rendezvous_port once, having checked it.
  std::string rendezvous;
  std::string rendezvous_host;
  uint16_t rendezvous_port = 0;
  std::string rendezvous_key;
  std::string announce_address;
  uint16_t base_port = 5201;        // pair i uses base_port + i
  uint16_t control_port = 5200;     // default base_port - 1
  uint32_t connect_timeout_ms = 10000;
  uint32_t accept_timeout_ms = 300000;  // server: how long to wait for the client
  uint32_t grace_ms = 2000;         // server: how long to keep receiving after the sender stopped
  CoreMap cores;
  uint32_t batch = 64;              // messages per system call or burst; the kind's batch_default when absent
  Workload workload = Workload::none;
  // GPU workload settings (src/gpu/, docs/gpu-workloads.md); used when workload != none
  uint32_t gemm_n = 1024;             // gemm, gemm_fp16: n x n matrices, fixed FLOPs per call
  uint32_t fft_length = 1024;         // fft: complex samples per transform, a power of two
  uint64_t workload_batch_bytes = 0;  // bytes of one assembled window (one compute call); 0 = 8 MiB
  bool sync_interval_given = false;  // the CSV writes "default" otherwise, as DAQIRI
  uint32_t sync_interval = 2;         // completed windows are collected every this many calls
  uint32_t max_in_flight = 2;         // windows on the GPU at once; the receive loop waits only here
  std::string ready_file;
  std::string summary_file;
  bool csv = false;                 // print DAQIRI's CSV header and row after the JSON record
  std::string csv_file;             // append the CSV row here (header when the file is new)
  std::map<std::string, std::string> labels;  // opaque, echoed into the record
  // The NDR/PDR search (search/rate_search.hpp): trials at rates it picks instead of one run at
  // target_mbps; the cell's duration is that of the final verification trial.
  std::optional<RateSearchSpec> search;
  // The kind's own options (its keys), stored by its parse() as one type of its own and read back
  // with std::any_cast (e.g. transports/roce/rdma_options.hpp). Empty for kinds without keys.
  std::any options;
};

constexpr uint32_t kMaxPairs = 64;
constexpr size_t kMaxLinks = 8;

// The server address pair `pair` connects to, and the link it belongs to.
inline const std::string& pair_server_address(const Cell& c, uint32_t pair) {
  return c.server_addresses.empty() ? c.server_address : c.server_addresses[pair % c.server_addresses.size()];
}
inline size_t link_count(const Cell& c) {
  return c.server_addresses.empty() ? (c.netdevs.empty() ? 1 : c.netdevs.size()) : c.server_addresses.size();
}
constexpr uint32_t kMaxPayloadBytes = 64u << 20;
constexpr uint32_t kMaxBatch = 1024;
// A summary line is at most 4096 / repeats bytes, and a socket summary needs about 800.
constexpr uint32_t kMaxRepeatsPerProcess = 4;

}  // namespace spiral
