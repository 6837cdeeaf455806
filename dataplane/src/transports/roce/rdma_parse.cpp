// The roce transport's keys and rules; its keys mirror its flags (--verb -> verb, ...).
#include "transports/roce/rdma_parse.hpp"

#include "config/buffer_memory.hpp"
#include "transports/roce/roce_build.hpp"

namespace spiral {

const char* to_string(RdmaOptions::Verb v) {
  switch (v) {
    case RdmaOptions::Verb::send: return "send";
    case RdmaOptions::Verb::write: return "write";
    case RdmaOptions::Verb::read: return "read";
  }
  return "?";
}

const char* to_string(RdmaOptions::Mode m) { return m == RdmaOptions::Mode::latency ? "latency" : "bandwidth"; }

const std::set<std::string> kRdmaKeys = {"verb",   "mode",        "queue_pairs", "tx_depth",      "rx_depth",
                                         "memory", "rdma_device", "netdev",      "verify_payload"};

RdmaOptions parse_rdma_options(const ObjectReader& r, Cell& c) {
  using O = RdmaOptions;
  O o;
  o.verb = r.one_of("verb", O::Verb::send, {{"send", O::Verb::send}, {"write", O::Verb::write}, {"read", O::Verb::read}});
  o.mode = r.one_of("mode", O::Mode::bandwidth, {{"bandwidth", O::Mode::bandwidth}, {"latency", O::Mode::latency}});
  o.memory = parse_buffer_memory(r);
  if (o.memory == BufferMemory::device)
    refuse_key("memory", "is device, which needs GPU memory registered for GPUDirect RDMA (dma-buf or "
                         "nvidia-peermem): this spiral-dataplane does not register GPU memory with the NIC yet; "
                         "use host or host_pinned");
  o.tx_depth = static_cast<uint32_t>(r.integer("tx_depth", 0, kMaxRdmaDepth, 0));
  o.rx_depth = static_cast<uint32_t>(r.integer("rx_depth", 0, kMaxRdmaDepth, 0));
  o.device = r.text("rdma_device", 63, "");
  o.netdev = r.text("netdev", 15, "");  // IFNAMSIZ - 1
  o.verify_payload = r.boolean("verify_payload", false);
  if (r.has("queue_pairs")) {
    const auto qps = static_cast<uint32_t>(r.integer("queue_pairs", 1, kMaxPairs, 1));
    if (r.has("pairs") && qps != c.pairs)
      refuse_key("queue_pairs", "is " + std::to_string(qps) + " but \"pairs\" is " + std::to_string(c.pairs) +
                                    ": for roce give queue_pairs only");
    c.pairs = qps;
  }
  if (o.mode == O::Mode::latency && c.pairs != 1)
    refuse_key("queue_pairs", "must be 1 in latency mode (ping-pong on one queue pair), got " + std::to_string(c.pairs));
  if (c.target_mbps != 0 && o.mode == O::Mode::latency)
    refuse_key("target_mbps", "must be 0 in latency mode (one message in flight: nothing to pace)");
  if (c.batch != 1) refuse_key("batch", "must be 1 for roce (tx_depth bounds what is in flight)");
  // The GPU works on what the server receives: sends and writes stream to it; reads land at the
  // client, and a latency run is not a stream.
  if (c.workload != Workload::none && (o.verb == O::Verb::read || o.mode == O::Mode::latency))
    refuse_key("workload.kind", std::string("is ") + to_string(c.workload) +
                                    ": a GPU workload needs verb send or write in bandwidth mode (it runs on "
                                    "what the server receives; reads land at the client)");
#if !SPIRAL_HAVE_RDMA
  refuse_key("transport", "is roce, but this spiral-dataplane was built without rdma-core (libibverbs): install "
                          "libibverbs-dev and rebuild with SPIRAL_WITH_RDMA=AUTO or ON");
#endif
  return o;
}

}  // namespace spiral
