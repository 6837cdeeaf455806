#include "transports/raw/raw_result.hpp"
#include "transports/raw/raw_options.hpp"

#include <algorithm>

#include "transports/raw/frame.hpp"

namespace spiral::raw {

datagram::SequenceStats merge_stream(const std::vector<std::vector<datagram::SequenceStats>>& rx_streams, size_t stream) {
  datagram::SequenceStats all;
  for (const auto& queue : rx_streams) {
    if (stream >= queue.size()) continue;
    const datagram::SequenceStats& s = queue[stream];
    all.received += s.received;
    all.duplicated += s.duplicated;
    all.reordered += s.reordered;
    all.stale += s.stale;
    if (!s.any) continue;
    all.min_seq = all.any ? std::min(all.min_seq, s.min_seq) : s.min_seq;
    all.max_seq = all.any ? std::max(all.max_seq, s.max_seq) : s.max_seq;
    all.any = true;
  }
  return all;
}

void account_drops(RawFigures& f, uint64_t lost, uint64_t& drops, std::string& drops_kind) {
  // DAQIRI's drops: the RX port's imissed + ierrors + rx_nombuf. The sequence loss those counters
  // do not explain is kept apart as `gap` (and in lost), never folded into DAQIRI's column.
  const uint64_t port = f.imissed + f.ierrors + f.rx_nombuf;
  f.gap = lost > port ? lost - port : 0;
  drops = port;
  drops_kind = kDropsKind;
}

namespace {
int64_t megabits_per_second(uint64_t bytes, int64_t ms) { return ms > 0 ? static_cast<int64_t>(bytes * 8 / 1000 / ms) : 0; }
double gigabits_per_second(uint64_t bytes, int64_t ms) { return ms > 0 ? double(bytes) * 8.0 / 1e6 / double(ms) : 0; }
}  // namespace

// The one wire proof (metrics/wire_proof.hpp) on the TX port's tx and the RX port's rx bytes:
// one link, the port pair.
void account_wire(const PortDeltas& ports, RunResult& r) {
  r.wire_checks = {check_wire(ports.tx_wire, true, r.tx_bytes), check_wire(ports.rx_wire, false, r.rx_bytes)};
  r.wire = to_string(overall(r.wire_checks));
  r.wire_note = wire_note(r.wire_checks);
  LinkResult l;
  l.tx_netdev = ports.tx_wire.netdev;
  l.rx_netdev = ports.rx_wire.netdev;
  l.pairs = static_cast<uint32_t>(r.pairs.size());
  l.tx_bytes = r.tx_bytes;
  l.rx_bytes = r.rx_bytes;
  l.tx_mbps = r.tx_mbps;
  l.rx_mbps = r.rx_mbps;
  l.tx_bytes_phy = ports.tx_wire.tx_bytes_phy;
  l.rx_bytes_phy = ports.rx_wire.rx_bytes_phy;
  l.wire = overall(r.wire_checks);
  r.links = {l};
}

RunResult combine_raw(const Cell& cell, const RawMeasurement& m) {
  RunResult r;
  RawFigures& f = raw_figures(r);
  f.tx_queues = raw_options(cell).tx_queues;
  f.rx_queues = raw_options(cell).rx_queues;
  r.has_sender = r.has_receiver = true;
  r.seconds_milli = m.window_ms;
  r.pairs.resize(m.tx.size());  // one "pair" per stream (TX queue) in pair_results

  for (size_t s = 0; s < m.tx.size(); ++s) {
    const QueueCounters& tx = m.tx[s];
    PairResult& p = r.pairs[s];
    p.tx_packets = tx.measured().packets;
    p.tx_bytes = tx.measured().bytes;
    r.tx_packets += p.tx_packets;
    r.tx_bytes += p.tx_bytes;
    r.tx_bytes_all += tx.all_bytes();
    f.tx_alloc_fails += tx.send_errors;

    const datagram::SequenceStats seen = merge_stream(m.rx_streams, s);
    auto loss = datagram::account_loss(seen, tx.sent_measured, tx.first_seq, tx.last_seq, tx.measured().packets);
    if (!loss.problem.empty()) r.problems.push_back("stream " + std::to_string(s) + ": " + loss.problem);
    p.rx_packets = seen.received;
    p.lost = loss.lost;
    p.reordered = seen.reordered;
    p.duplicated = seen.duplicated;
    r.lost += loss.lost;
    r.stale += seen.stale;
  }
  for (const QueueCounters& rx : m.rx) {
    r.rx_packets += rx.measured().packets;
    r.rx_bytes += rx.measured().bytes;
    r.rx_bytes_all += rx.all_bytes();
    r.reordered += rx.reordered;
    r.duplicated += rx.duplicated;
    r.malformed += rx.malformed;
    r.foreign += rx.foreign;
    f.rx_queue_packets.push_back(rx.measured().packets);
  }
  for (auto& p : r.pairs) p.rx_bytes = p.rx_packets * frame_bytes(cell.payload_bytes);  // every frame has one length
  uint64_t stream_received = 0;
  for (const auto& p : r.pairs) stream_received += p.rx_packets;
  if (stream_received != r.rx_packets)
    r.problems.push_back("RX queues counted " + std::to_string(r.rx_packets) + " measured frames, the streams " +
                         std::to_string(stream_received));

  f.imissed = m.ports.imissed;
  f.ierrors = m.ports.ierrors;
  f.rx_nombuf = m.ports.rx_nombuf;
  f.oerrors = m.ports.oerrors;
  f.phy_checked = m.ports.tx_wire.available && m.ports.rx_wire.available;
  f.phy_note = f.phy_checked ? "" : "no PHY counters";
  f.tx_packets_phy = m.ports.tx_wire.tx_packets_phy;
  f.rx_packets_phy = m.ports.rx_wire.rx_packets_phy;
  account_drops(f, r.lost, r.drops, r.drops_kind);
  r.loss_ppm = r.tx_packets ? static_cast<int64_t>(r.lost * 1'000'000 / r.tx_packets) : 0;

  r.tx_mbps = megabits_per_second(r.tx_bytes, m.window_ms);
  r.tx_gbps = gigabits_per_second(r.tx_bytes, m.window_ms);
  // Frames belong to the window by the sender's flag, so the sender's window times both sides.
  r.rx_mbps = megabits_per_second(r.rx_bytes, m.window_ms);
  r.rx_gbps = gigabits_per_second(r.rx_bytes, m.window_ms);
  r.pps = m.window_ms > 0 ? r.rx_packets * 1000 / static_cast<uint64_t>(m.window_ms) : 0;
  r.rx_finished = true;
  r.cores = m.cores;
  r.cpu_master_mpct = m.master_mpct;
  r.cpu_tx_mpct = mean_busy(r.cores, "tx");
  r.cpu_rx_mpct = mean_busy(r.cores, "rx");
  account_wire(m.ports, r);
  return r;
}

// The raw part of the verdict beyond the shared checks (the wire proof among them): the
// forward mode's own. Empty when fine.
std::string raw_invalid_reason(const RunResult& r) {
  return forward_invalid_reason(raw_figures(r).forward);
}

}  // namespace spiral::raw
