// roce: RC queue pairs over ibverbs; the client is the requester (send, write or read), the
// server the responder. Drops are failed work completions. Without rdma-core the kind still
// parses, and refuses to run (roce_factory_unavailable.cpp, rdma_parse.cpp).
#include "transports/roce/roce_kind.hpp"

#include <nlohmann/json.hpp>

#include "transports/roce/rdma_accounting.hpp"
#include "transports/roce/rdma_parse.hpp"
#include "transports/roce/rdma_result.hpp"
#include "transports/roce/roce_factory.hpp"

namespace spiral::roce {

namespace {

void parse(const ObjectReader& r, Cell& c) { c.options = parse_rdma_options(r, c); }

void cell_json(const Cell& c, nlohmann::json& j) {
  const RdmaOptions& o = rdma_options(c);
  j["queue_pairs"] = c.pairs;
  j["verb"] = to_string(o.verb);
  j["mode"] = to_string(o.mode);
  j["tx_depth"] = o.tx_depth;
  j["rx_depth"] = o.rx_depth;
  j["memory"] = to_string(o.memory);
  j["rdma_device"] = o.device;
  j["netdev"] = o.netdev;
  j["verify_payload"] = o.verify_payload;
}

std::unique_ptr<Engine> engine(const Cell& c, Direction d, uint32_t) { return make_engine(c, d); }

// Every message the sender announced completed on every queue pair.
bool caught_up(const Cell&, const std::vector<QueueCounters>& rx, const SideReport&) {
  for (const auto& q : rx)
    if (!q.finished) return false;
  return true;
}

void record_fields(const Cell& c, const RunResult& r, nlohmann::ordered_json& j) { j["rdma"] = record(c, r); }

const LatencySummary* latency(const Cell& c, const RunResult& r) {
  return rdma_options(c).mode == RdmaOptions::Mode::latency ? &rdma_result(r).latency : nullptr;
}

BenchKind describe() {
  using T = KindFlag::Type;
  BenchKind k;
  k.name = "roce";
  k.backend = "rdma";
  k.drops_kind = "rdma-cqe-error";
  k.run_mode = RunMode::two_sided;
  k.keys = kRdmaKeys;
  k.flags = {
      {"--verb", "verb", T::text, "send | write (with immediate) | read"},
      {"--mode", "mode", T::text, "bandwidth | latency (ping-pong)"},
      {"--queue-pairs", "queue_pairs", T::integer, "RC queue pairs, one thread each side"},
      {"--tx-depth", "tx_depth", T::integer, "operations in flight per QP; 0 = sized to the message"},
      {"--rx-depth", "rx_depth", T::integer, "receives pre-posted per QP; 0 = sized to the message"},
      {"--memory", "memory", T::text, "buffers in host | host_pinned | device memory"},
      {"--rdma-device", "rdma_device", T::text, "RDMA device; default: the one on --netdev"},
      {"--netdev", "netdev", T::text, "network interface whose RoCE v2 GID to use"},
      {"--verify-payload", "verify_payload", T::toggle, "fill and check every byte (tests)"},
  };
  k.batch_default = 1;
  k.max_batch = kMaxBatch;
  k.parse = parse;
  k.cell_json = cell_json;
  k.make_engine = engine;
  k.caught_up = caught_up;
  k.sender_timed = true;  // messages carry the sender's phase
  k.account = account;
  k.verdict = verdict;
  k.record_fields = record_fields;
  k.latency = latency;
  return k;
}

}  // namespace

const BenchKind& kind() {
  static const BenchKind k = describe();
  return k;
}

}  // namespace spiral::roce
