// The forward mode's keys and rules (l2fwd-nv).
#include "transports/raw/forward_parse.hpp"

#include "sys/errors.hpp"
#include "transports/raw/raw_port.hpp"

namespace spiral {

namespace {
#ifdef SPIRAL_HAVE_CUDA
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif

ForwardWork parse_work(const std::string& text) {
  for (ForwardWork w : {ForwardWork::none, ForwardWork::cpu, ForwardWork::gpu_kernel, ForwardWork::gpu_persistent,
                        ForwardWork::gpu_graphs})
    if (text == to_string(w)) return w;
  refuse_key("forward_work", "must be none, cpu, gpu_kernel, gpu_persistent or gpu_graphs, got \"" + text + "\"");
}
}  // namespace

ForwardOptions parse_forward_options(const ObjectReader& r) {
  ForwardOptions f;
  f.rx_port = resolve_port_source("forward_rx_port", r.text("forward_rx_port", 512, ""));
  f.tx_port = resolve_port_source("forward_tx_port", r.text("forward_tx_port", 512, ""));
  f.work = parse_work(r.text("forward_work", 32, "none"));
  f.pipelines = static_cast<uint32_t>(r.integer("forward_pipelines", 1, kMaxForwardPipelines, 1));
  f.work_ns = static_cast<uint32_t>(r.integer("forward_work_ns", 0, kMaxForwardWorkNs, 0));
  f.buffer_split = r.boolean("forward_buffer_split", false);
  return f;
}

void check_forward(const Cell& c, const ObjectReader& r) {
  const RawOptions& o = raw_options(c);
  const ForwardOptions& f = o.forward;
  if (!f.enabled()) {
    for (const char* key : {"forward_tx_port", "forward_work", "forward_pipelines", "forward_work_ns",
                            "forward_buffer_split"})
      if (r.has(key)) refuse_key(key, "applies to the forward mode only: set forward_rx_port and forward_tx_port");
    if (!c.cores.list("forward_rx").empty() || !c.cores.list("forward_tx").empty())
      refuse_key("cores.forward_rx", "applies to the forward mode only: set forward_rx_port and forward_tx_port");
    return;
  }
  if (f.tx_port.empty()) refuse_key("forward_tx_port", "is required with forward_rx_port (the forwarder's TX port)");
  const PortSpec in = parse_port("forward_rx_port", f.rx_port);
  const PortSpec out = parse_port("forward_tx_port", f.tx_port);
  const std::string ports[] = {o.tx_port, o.rx_port, f.rx_port, f.tx_port};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (ports[i] == ports[j])
        refuse_key("forward_rx_port", "the forward mode needs four distinct ports (tx_port -> forward_rx_port, "
                                      "forward_tx_port -> rx_port), but \"" + ports[i] + "\" is named twice");
  if (o.tx_queues != f.pipelines || o.rx_queues != f.pipelines)
    refuse_key("forward_pipelines", std::to_string(f.pipelines) + " must equal tx_queues (" +
                                        std::to_string(o.tx_queues) + ") and rx_queues (" +
                                        std::to_string(o.rx_queues) +
                                        "): the sender's queue q feeds pipeline q, which feeds the receiver's queue q");
  if (c.batch > kMaxForwardBurst)
    refuse_key("batch", std::to_string(c.batch) + " is above " + std::to_string(kMaxForwardBurst) +
                            " for the forward mode (the forwarder's burst; l2fwd-nv measures 16..128)");
  if (f.buffer_split) {
    const PortSpec& virt = in.is_virtual() ? in : out;
    if (in.is_virtual() || out.is_virtual())
      refuse_key("forward_buffer_split", "needs a NIC whose driver splits a frame into two mbufs "
                                         "(RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT, e.g. mlx5), but " + virt.name +
                                         " is a virtual device; leave it false");
    refuse_key("forward_buffer_split", "is not implemented in this spiral-dataplane (no NIC to test it on); leave it false");
  }
  if (c.workload != Workload::none)
    refuse_key("workload.kind", "does not apply to the forward mode: its GPU work is forward_work "
                                "(gpu_kernel, gpu_persistent, gpu_graphs)");
  if (on_gpu(f.work)) {
    if (!kBuiltWithCuda)
      refuse_key("forward_work", std::string("is ") + to_string(f.work) +
                                     ", which needs a GPU: this spiral-dataplane was built without CUDA");
    if (o.memory != BufferMemory::host_pinned)
      refuse_key("memory", std::string("must be host_pinned for forward_work ") + to_string(f.work) +
                               ": the GPU swaps the MACs in place, in the forwarder's mbufs mapped into it "
                               "(device memory needs a GPUDirect NIC and gpudev)");
    if (in.driver == "net_ring" || out.driver == "net_ring")
      refuse_key("forward_rx_port", "net_ring passes the sender's mbufs over (their data is not in the forwarder's "
                                    "GPU-mapped pool): use net_memif or net_af_packet for GPU work");
  }
}

}  // namespace spiral
