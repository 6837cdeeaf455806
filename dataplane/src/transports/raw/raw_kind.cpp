// raw: Ethernet frames through DPDK, TX on one port and RX on another, both in one process (the
// in-process run, raw_session.cpp). Frames carry the sequenced-datagram header (src/datagram/);
// drops are the RX port's own counters plus the sequence loss they leave unexplained.
#include "transports/raw/raw_kind.hpp"

#include <nlohmann/json.hpp>

#include "metrics/verdict.hpp"
#include "transports/raw/raw_figures.hpp"
#include "transports/raw/raw_parse.hpp"
#include "transports/raw/raw_result.hpp"
#include "transports/raw/raw_session.hpp"

namespace spiral::raw {

namespace {

void parse(const ObjectReader& r, Cell& c) { c.options = parse_raw_options(r, c); }

void cell_json(const Cell& c, nlohmann::json& j) {
  const RawOptions& o = raw_options(c);
  j["tx_port"] = o.tx_port;
  j["rx_port"] = o.rx_port;
  j["tx_queues"] = o.tx_queues;
  j["rx_queues"] = o.rx_queues;
  j["memory"] = to_string(o.memory);
  j["ring_descriptors"] = o.ring_descriptors;
  j["pool_buffers"] = o.pool_buffers;
  j["no_huge"] = o.no_huge;
  if (o.forward.enabled()) {
    j["forward_rx_port"] = o.forward.rx_port;
    j["forward_tx_port"] = o.forward.tx_port;
    j["forward_work"] = to_string(o.forward.work);
    j["forward_pipelines"] = o.forward.pipelines;
    j["forward_work_ns"] = o.forward.work_ns;
    j["forward_buffer_split"] = o.forward.buffer_split;
  }
}

nlohmann::ordered_json forward_json(const ForwardFigures& f) {
  nlohmann::ordered_json pipelines = nlohmann::ordered_json::array();
  for (const ForwardPipelineCounts& p : f.per_pipeline)
    pipelines.push_back({{"received", p.received}, {"sent", p.sent}, {"bursts", p.bursts}, {"gpu_bursts", p.gpu_bursts}});
  return {{"work", f.work},
          {"pipelines", f.pipelines},
          {"burst", f.burst},
          {"work_ns", f.work_ns},
          {"offered_gbps", f.offered_gbps},
          {"forwarded_gbps", f.forwarded_gbps},
          {"offered_mpps", f.offered_mpps},
          {"forwarded_mpps", f.forwarded_mpps},
          {"mac_as_sent", f.mac_as_sent},
          {"mac_swapped", f.mac_swapped},
          {"mac_other", f.mac_other},
          {"sender_mac", f.sender_mac},
          {"receiver_mac", f.receiver_mac},
          {"imissed", f.imissed},
          {"rx_nombuf", f.rx_nombuf},
          {"oerrors", f.oerrors},
          {"gpu_sm_mpct", f.gpu_sm_mpct},
          {"gpu_note", f.gpu_note},
          {"gpu_stopped_cleanly", f.gpu_stopped_cleanly},
          {"per_pipeline", pipelines}};
}

std::optional<std::string> verdict(const Cell& c, const RunResult& r) {
  if (auto why = datagram_verdict(c, r)) return why;
  if (std::string why = raw_invalid_reason(r); !why.empty()) return why;
  return std::nullopt;
}

void record_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& record) {
  const RawFigures& f = raw_figures(r);
  record["raw"] = {{"tx_queues", f.tx_queues},
                   {"rx_queues", f.rx_queues},
                   {"imissed", f.imissed},
                   {"ierrors", f.ierrors},
                   {"rx_nombuf", f.rx_nombuf},
                   {"gap", f.gap},
                   {"oerrors", f.oerrors},
                   {"tx_alloc_fails", f.tx_alloc_fails},
                   {"rx_queue_packets", f.rx_queue_packets},
                   {"phy_checked", f.phy_checked},
                   {"phy_note", f.phy_note},
                   {"tx_packets_phy", f.tx_packets_phy},
                   {"rx_packets_phy", f.rx_packets_phy},
                   {"hugepages", f.hugepages},
                   {"tx_driver", f.tx_driver},
                   {"rx_driver", f.rx_driver},
                   {"eal_args", f.eal_args}};
  if (f.forward.enabled) record["raw"]["forward"] = forward_json(f.forward);
}

// The drop kinds and the wire proof.
void summary_fields(const Cell&, const RunResult& r, nlohmann::ordered_json& j) {
  const RawFigures& f = raw_figures(r);
  j["tx_queues"] = f.tx_queues;
  j["rx_queues"] = f.rx_queues;
  j["imissed"] = f.imissed;
  j["ierrors"] = f.ierrors;
  j["rx_nombuf"] = f.rx_nombuf;
  j["gap"] = f.gap;
  j["phy_checked"] = f.phy_checked;
  if (f.forward.enabled) {
    j["forward_work"] = f.forward.work;
    j["offered_mpps"] = f.forward.offered_mpps;
    j["forwarded_mpps"] = f.forward.forwarded_mpps;
    j["offered_gbps"] = f.forward.offered_gbps;
    j["forwarded_gbps"] = f.forward.forwarded_gbps;
  }
}

BenchKind describe() {
  using T = KindFlag::Type;
  BenchKind k;
  k.name = "raw";
  k.backend = "dpdk";
  k.drops_kind = kDropsKind;
  k.daqiri_counts_receiver = true;
  k.rate_search = true;  // paced, and sequence numbers give each run exact loss
  k.sequenced = true;  // DAQIRI's packets/bytes/gbps are "RX complete" counts
  k.run_mode = RunMode::in_process;
  k.keys = kRawKeys;
  k.flags = {
      {"--tx-port", "tx_port", T::text, "TX port, PCI address or DPDK vdev (net_memif0,role=server)"},
      {"--rx-port", "rx_port", T::text, "RX port, PCI address or DPDK vdev"},
      {"--tx-queues", "tx_queues", T::integer, "TX queues, one poll-mode core each"},
      {"--rx-queues", "rx_queues", T::integer, "RX queues, one poll-mode core each"},
      {"--memory", "memory", T::text, "buffers in host | host_pinned | device memory"},
      {"--ring-descriptors", "ring_descriptors", T::integer, "descriptors per TX/RX queue"},
      {"--pool-buffers", "pool_buffers", T::integer, "mbufs per queue's pool"},
      {"--no-huge", "no_huge", T::toggle, "plain memory instead of hugepages"},
      {"--tx-workers", "tx_workers", T::core_list, "worker core per TX queue (builds bursts), list[i % n]"},
      {"--rx-workers", "rx_workers", T::core_list, "worker core per RX queue (checks frames), list[i % n]"},
      {"--forward-rx-port", "forward_rx_port", T::text, "forward mode: the forwarder's RX port (tx_port's peer)"},
      {"--forward-tx-port", "forward_tx_port", T::text, "forward mode: the forwarder's TX port (rx_port's peer)"},
      {"--forward-work", "forward_work", T::text, "forward mode: none | cpu | gpu_kernel | gpu_persistent | gpu_graphs"},
      {"--forward-pipelines", "forward_pipelines", T::integer, "forward mode: pipelines (RX core + TX core each)"},
      {"--forward-work-ns", "forward_work_ns", T::integer, "forward mode: forced work time per packet, ns"},
      {"--forward-buffer-split", "forward_buffer_split", T::toggle, "forward mode: header and payload in two mbufs"},
      {"--forward-rx-cores", "forward_rx", T::core_list, "forward mode: RX core of pipeline i, list[i % n]"},
      {"--forward-tx-cores", "forward_tx", T::core_list, "forward mode: TX core of pipeline i, list[i % n]"},
  };
  k.batch_default = 64;
  k.max_batch = kMaxRawBatch;
  // a cell of any kind may spell the lists out empty (docs/dataplane.md's contract example)
  const char* own_threads = "must be empty for socket transports: each pair's thread does its own work";
  const char* forward_only = "applies to transport raw's forward mode only";
  k.neutral_keys = {{"cores.tx_workers", NeutralKey::Neutral::empty_list, own_threads},
                    {"cores.rx_workers", NeutralKey::Neutral::empty_list, own_threads},
                    {"cores.forward_rx", NeutralKey::Neutral::empty_list, forward_only},
                    {"cores.forward_tx", NeutralKey::Neutral::empty_list, forward_only}};
  k.parse = parse;
  k.check = check_raw;
  k.cell_json = cell_json;
  k.make_session = make_session;
  k.sender_timed = true;  // frames carry the sender's phase
  k.verdict = verdict;
  k.record_fields = record_fields;
  k.summary_fields = summary_fields;
  return k;
}

}  // namespace

const BenchKind& kind() {
  static const BenchKind k = describe();
  return k;
}

}  // namespace spiral::raw
