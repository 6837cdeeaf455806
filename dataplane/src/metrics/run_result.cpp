#include "metrics/run_result.hpp"

#include <algorithm>
#include <set>

#include "datagram/sequence_tracker.hpp"

namespace spiral {

const char* to_string(RunState s) {
  switch (s) {
    case RunState::valid: return "Valid";
    case RunState::invalid: return "Invalid";
    case RunState::failed: return "Failed";
  }
  return "?";
}

int64_t mean_busy(const std::vector<CoreBusy>& cores, const std::string& role) {
  std::set<int> seen;
  int64_t sum = 0;
  for (const auto& c : cores) {
    if (c.role != role || c.busy_mpct < 0 || !seen.insert(c.core).second) continue;
    sum += c.busy_mpct;
  }
  return seen.empty() ? -1 : (sum + static_cast<int64_t>(seen.size()) / 2) / static_cast<int64_t>(seen.size());
}

namespace {

int64_t megabits_per_second(uint64_t bytes, int64_t ms) { return ms > 0 ? static_cast<int64_t>(bytes * 8 / 1000 / ms) : 0; }
double gigabits_per_second(uint64_t bytes, int64_t ms) { return ms > 0 ? double(bytes) * 8.0 / 1e6 / double(ms) : 0; }

void add_sender(const SideReport& s, RunResult& r) {
  r.has_sender = true;
  r.seconds_milli = s.window_ms;
  for (size_t i = 0; i < s.queues.size() && i < r.pairs.size(); ++i) {
    const QueueCounters& q = s.queues[i];
    PairResult& p = r.pairs[i];
    p.tx_packets = q.measured().packets;
    p.tx_bytes = q.measured().bytes;
    p.retrans = q.retrans;
    r.tx_packets += p.tx_packets;
    r.tx_bytes += p.tx_bytes;
    r.tx_bytes_all += q.all_bytes();
    r.retrans += q.retrans;
    r.kernel_drops += q.kernel_drops;  // kinds that count drops where they send (0 elsewhere)
    r.segs_out += q.segs_out;
    r.send_errors += q.send_errors;
  }
  r.tx_mbps = megabits_per_second(r.tx_bytes, s.window_ms);
  r.tx_gbps = gigabits_per_second(r.tx_bytes, s.window_ms);
}

void add_receiver(const Cell& cell, const SideReport& s, RunResult& r) {
  r.has_receiver = true;
  r.rx_finished = !s.queues.empty();
  for (size_t i = 0; i < s.queues.size() && i < r.pairs.size(); ++i) {
    const QueueCounters& q = s.queues[i];
    PairResult& p = r.pairs[i];
    p.rx_packets = q.measured().packets;
    p.rx_bytes = q.measured().bytes;
    p.reordered = q.reordered;
    p.duplicated = q.duplicated;
    p.kernel_drops = q.kernel_drops;
    r.rx_packets += p.rx_packets;
    r.rx_bytes += p.rx_bytes;
    r.rx_bytes_all += q.all_bytes();
    r.reordered += q.reordered;
    r.duplicated += q.duplicated;
    r.stale += q.stale;
    r.malformed += q.malformed;
    r.foreign += q.foreign;
    r.kernel_drops += q.kernel_drops;
    r.rx_recv_calls += q.recv_calls;
    r.rx_recv_ns += q.recv_ns;
    r.rx_finished = r.rx_finished && q.finished;
  }
  // Traffic tagged with the sender's phase belongs to the window by that tag: its clock times it.
  const int64_t ms = cell.kind->sender_timed && r.has_sender ? r.seconds_milli : s.window_ms;
  if (!r.has_sender) r.seconds_milli = s.window_ms;
  r.rx_mbps = megabits_per_second(r.rx_bytes, ms);
  r.rx_gbps = gigabits_per_second(r.rx_bytes, ms);
  r.pps = ms > 0 ? r.rx_packets * 1000 / static_cast<uint64_t>(ms) : 0;
}

}  // namespace

void account_sequence_loss(const SideReport& sender, const SideReport& receiver, RunResult& r) {
  for (size_t i = 0; i < sender.queues.size() && i < receiver.queues.size(); ++i) {
    const QueueCounters& tx = sender.queues[i];
    const QueueCounters& rx = receiver.queues[i];
    datagram::SequenceStats seen;
    seen.any = rx.seen_measured;
    seen.min_seq = rx.min_seq;
    seen.max_seq = rx.max_seq;
    seen.received = rx.measured().packets;
    seen.stale = rx.stale;
    auto loss = datagram::account_loss(seen, tx.sent_measured, tx.first_seq, tx.last_seq, tx.measured().packets);
    if (!loss.problem.empty()) r.problems.push_back("pair " + std::to_string(i) + ": " + loss.problem);
    r.pairs[i].lost = loss.lost;
    r.lost += loss.lost;
  }
  r.drops = r.lost;
  r.loss_ppm = r.tx_packets ? static_cast<int64_t>(r.lost * 1'000'000 / r.tx_packets) : 0;
}

RunResult combine(const Cell& cell, const SideReport* sender, const SideReport* receiver, int64_t master_mpct) {
  RunResult r;
  r.pairs.resize(cell.pairs);
  if (sender) add_sender(*sender, r);
  if (receiver) add_receiver(cell, *receiver, r);
  r.drops_kind = cell.kind->drops_kind;
  if (cell.kind->account) cell.kind->account(cell, sender, receiver, r);
  for (const SideReport* side : {sender, receiver})
    if (side) r.cores.insert(r.cores.end(), side->cores.begin(), side->cores.end());
  r.cpu_master_mpct = master_mpct;
  r.cpu_tx_mpct = mean_busy(r.cores, "tx");
  r.cpu_rx_mpct = mean_busy(r.cores, "rx");
  if (receiver) r.gpu = receiver->gpu;
  return r;
}

}  // namespace spiral
