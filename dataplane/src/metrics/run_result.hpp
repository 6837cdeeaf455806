#pragma once
// One run's numbers, combined from the sender's and the receiver's reports.
#include <any>
#include <cstdint>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "metrics/side_report.hpp"

namespace spiral {

enum class RunState { valid, invalid, failed };
const char* to_string(RunState s);  // "Valid" | "Invalid" | "Failed"

struct PairResult {
  uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  uint64_t lost = 0, reordered = 0, duplicated = 0, kernel_drops = 0, retrans = 0;
};

struct RunResult {
  RunState state = RunState::failed;
  std::string reason;
  int64_t seconds_milli = 0;  // the sender's measured window
  uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  uint64_t pps = 0;           // at the receiver
  int64_t tx_mbps = 0, rx_mbps = 0;
  double tx_gbps = 0, rx_gbps = 0;
  uint64_t drops = 0;
  std::string drops_kind;     // what `drops` counts, named by the kind (BenchKind::drops_kind, account)
  int64_t loss_ppm = 0;       // drops per million sent (datagrams, messages or segments, per the kind)
  uint64_t lost = 0, reordered = 0, duplicated = 0, stale = 0, malformed = 0, foreign = 0;
  uint64_t kernel_drops = 0, retrans = 0, segs_out = 0, send_errors = 0;
  uint64_t rx_recv_calls = 0, rx_recv_ns = 0;  // the receiver's timed receive calls (QueueCounters::recv_ns)
  uint64_t tx_bytes_all = 0, rx_bytes_all = 0;  // whole run, warm-up and drain included
  bool rx_finished = false;                     // every receiver queue saw the end of its stream
  int64_t cpu_master_mpct = -1, cpu_tx_mpct = -1, cpu_rx_mpct = -1;
  gpu::GpuReport gpu;  // the receiver's GPU workload (src/gpu/)
  std::vector<CoreBusy> cores;
  std::vector<PairResult> pairs;
  bool has_sender = false, has_receiver = false;
  std::vector<std::string> problems;  // counter inconsistencies found while combining
  // The kind's own figures (BenchKind::account fills them, its record_fields and verdict read
  // them back with std::any_cast), e.g. transports/raw/raw_figures.hpp. Empty for kinds without.
  std::any figures;
};

// Either report may be missing when a run failed half-way. master_mpct: this process's master.
// The shared sums, then the kind's accounting (BenchKind::account).
RunResult combine(const Cell& cell, const SideReport* sender, const SideReport* receiver, int64_t master_mpct);

// Loss of sequenced datagrams (src/datagram/), pair by pair: the sender's numbered window against
// what the receiver saw of it. Sets lost, drops (= lost), loss_ppm; drops_kind is the caller's.
void account_sequence_loss(const SideReport& sender, const SideReport& receiver, RunResult& r);

// Mean busy share of the distinct cores of `role`, -1 when none is known.
int64_t mean_busy(const std::vector<CoreBusy>& cores, const std::string& role);

}  // namespace spiral
