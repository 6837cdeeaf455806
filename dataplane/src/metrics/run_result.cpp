#include "metrics/run_result.hpp"

#include <algorithm>
#include <map>
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

// --- links and their wire proof ---
namespace {

// One check per distinct netdev of one side (links sharing an interface share its PHY), with the
// application bytes of every link on it; links without an interface are checked one by one.
std::vector<WireCheck> side_checks(const std::vector<WireSide>& sides, const std::vector<uint64_t>& app_bytes,
                                   bool transmit) {
  std::vector<WireCheck> checks;
  std::map<std::string, size_t> by_netdev;
  for (size_t k = 0; k < sides.size(); ++k) {
    const uint64_t bytes = k < app_bytes.size() ? app_bytes[k] : 0;
    auto it = sides[k].netdev.empty() ? by_netdev.end() : by_netdev.find(sides[k].netdev);
    if (it == by_netdev.end()) {
      if (!sides[k].netdev.empty()) by_netdev[sides[k].netdev] = checks.size();
      checks.push_back(check_wire(sides[k], transmit, bytes));
    } else {
      WireCheck& c = checks[it->second];
      c = check_wire(sides[k], transmit, c.app_bytes + bytes);
    }
  }
  return checks;
}

// A link's share of its side's checks: the verdict of its netdev's check.
WireCheck check_of(const std::vector<WireCheck>& checks, const WireSide& side) {
  WireCheck c;
  if (side.netdev.empty() || !side.available) return c;
  for (const auto& x : checks)
    if (x.netdev == side.netdev) c.verdict = x.verdict;
  return c;
}

}  // namespace

void account_links(const SideReport* sender, const SideReport* receiver, RunResult& r) {
  const size_t tx_links = sender ? sender->links.size() : 0, rx_links = receiver ? receiver->links.size() : 0;
  const size_t n = std::max(tx_links, rx_links);
  if (n == 0) return;
  r.links.assign(n, {});
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    LinkResult& l = r.links[i % n];
    l.pairs++;
    l.tx_bytes += r.pairs[i].tx_bytes;
    l.rx_bytes += r.pairs[i].rx_bytes;
  }
  std::vector<uint64_t> tx_app, rx_app;
  for (auto& l : r.links) {
    tx_app.push_back(l.tx_bytes);
    rx_app.push_back(l.rx_bytes);
    l.tx_mbps = megabits_per_second(l.tx_bytes, r.seconds_milli);
    l.rx_mbps = megabits_per_second(l.rx_bytes, r.seconds_milli);
  }
  std::vector<WireCheck> tx_checks, rx_checks;
  if (sender) tx_checks = side_checks(sender->links, tx_app, /*transmit=*/true);
  if (receiver) rx_checks = side_checks(receiver->links, rx_app, /*transmit=*/false);
  for (size_t k = 0; k < n; ++k) {
    LinkResult& l = r.links[k];
    std::vector<WireCheck> mine(2);  // unverified unless the side reported this link
    if (k < tx_links) {
      const WireSide& s = sender->links[k];
      l.address = s.address;
      l.tx_netdev = s.netdev;
      l.tx_bytes_phy = s.tx_bytes_phy;
      mine[0] = check_of(tx_checks, s);
    }
    if (k < rx_links) {
      const WireSide& s = receiver->links[k];
      if (l.address.empty()) l.address = s.address;
      l.rx_netdev = s.netdev;
      l.rx_bytes_phy = s.rx_bytes_phy;
      mine[1] = check_of(rx_checks, s);
    }
    l.wire = overall(mine);
  }
  r.wire_checks = tx_checks;
  r.wire_checks.insert(r.wire_checks.end(), rx_checks.begin(), rx_checks.end());
  // A side that reported no links (a failed half) leaves its direction unverified.
  if (!sender || !receiver) {
    WireCheck missing;
    missing.note = std::string("the ") + (sender ? "receiver" : "sender") + " did not report";
    r.wire_checks.push_back(missing);
  }
  r.wire = to_string(overall(r.wire_checks));
  r.wire_note = wire_note(r.wire_checks);
}

RunResult combine(const Cell& cell, const SideReport* sender, const SideReport* receiver, int64_t master_mpct) {
  RunResult r;
  r.pairs.resize(cell.pairs);
  if (sender) add_sender(*sender, r);
  if (receiver) add_receiver(cell, *receiver, r);
  r.drops_kind = cell.kind->drops_kind;
  if (cell.kind->account) cell.kind->account(cell, sender, receiver, r);
  account_links(sender, receiver, r);
  for (const SideReport* side : {sender, receiver})
    if (side) r.cores.insert(r.cores.end(), side->cores.begin(), side->cores.end());
  r.cpu_master_mpct = master_mpct;
  r.cpu_tx_mpct = mean_busy(r.cores, "tx");
  r.cpu_rx_mpct = mean_busy(r.cores, "rx");
  if (receiver) r.gpu = receiver->gpu;
  return r;
}

}  // namespace spiral
