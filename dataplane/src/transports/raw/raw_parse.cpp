// The raw Ethernet (DPDK) transport's keys and rules.
#include "transports/raw/raw_parse.hpp"

#include "config/buffer_memory.hpp"
#include "sys/errors.hpp"
#include "transports/raw/forward_parse.hpp"
#include "transports/raw/raw_port.hpp"

namespace spiral {

const std::set<std::string> kRawKeys = {"tx_port", "rx_port", "tx_queues", "rx_queues", "memory",
                                        "ring_descriptors", "pool_buffers", "no_huge",
                                        // forward mode (forward_parse.cpp)
                                        "forward_rx_port", "forward_tx_port", "forward_work", "forward_pipelines",
                                        "forward_work_ns", "forward_buffer_split"};

namespace {
#ifdef SPIRAL_HAVE_DPDK
constexpr bool kBuiltWithDpdk = true;
#else
constexpr bool kBuiltWithDpdk = false;
#endif
#ifdef SPIRAL_HAVE_CUDA
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif
}  // namespace

RawOptions parse_raw_options(const ObjectReader& r, const Cell&) {
  RawOptions o;
  // the record shows the device, not the variable it came from
  o.tx_port = resolve_port_source("tx_port", r.text("tx_port", 512, ""));
  o.rx_port = resolve_port_source("rx_port", r.text("rx_port", 512, ""));
  o.tx_queues = static_cast<uint32_t>(r.integer("tx_queues", 1, kMaxRawQueues, o.tx_queues));
  o.rx_queues = static_cast<uint32_t>(r.integer("rx_queues", 1, kMaxRawQueues, o.rx_queues));
  o.memory = parse_buffer_memory(r);
  o.ring_descriptors =
      static_cast<uint32_t>(r.integer("ring_descriptors", kMinRingDescriptors, kMaxRingDescriptors, o.ring_descriptors));
  o.pool_buffers = static_cast<uint32_t>(r.integer("pool_buffers", 255, 1 << 22, o.pool_buffers));
  o.no_huge = r.boolean("no_huge", false);
  o.forward = parse_forward_options(r);
  return o;
}

void check_raw(const Cell& c, const ObjectReader& r) {
  if (!kBuiltWithDpdk)
    throw BadInput("transport raw needs DPDK: this spiral-dataplane was built without it "
                   "(SPIRAL_WITH_DPDK=OFF, or libdpdk-dev was missing at build time)");
  if (c.role != Role::loopback)
    refuse_key("role", "must be loopback for transport raw: one process drives the TX and the RX port");
  const RawOptions& o = raw_options(c);
  const PortSpec tx = parse_port("tx_port", o.tx_port);
  const PortSpec rx = parse_port("rx_port", o.rx_port);
  if (c.payload_bytes < kMinRawPayload || c.payload_bytes > kMaxRawPayload)
    refuse_key("payload_bytes", "must be in " + std::to_string(kMinRawPayload) + ".." +
                                    std::to_string(kMaxRawPayload) +
                                    " for raw (UDP payload of one frame, MTU 9000; the sequence header takes " +
                                    std::to_string(kMinRawPayload) + "), got " + std::to_string(c.payload_bytes));
  if (o.memory == BufferMemory::device && (tx.is_virtual() || rx.is_virtual()))
    refuse_key("memory", std::string("device needs a GPUDirect-capable NIC (a PCI port), but ") +
                             (tx.is_virtual() ? "tx_port " + tx.name : "rx_port " + rx.name) +
                             " is a virtual device; use host");
  // host_pinned: locked memory as DPDK external memory; CUDA registers it only for a workload
  if (o.memory == BufferMemory::device)
    refuse_key("memory", "is device (mbuf data in GPU memory through DPDK's gpudev): this spiral-dataplane has no "
                         "gpudev path; use host_pinned, which a GPU reads in place");
  if (c.batch > o.ring_descriptors)
    refuse_key("batch", std::to_string(c.batch) + " is larger than the ring: ring_descriptors is " +
                            std::to_string(o.ring_descriptors));
  if (uint64_t{o.pool_buffers} < uint64_t{o.ring_descriptors} + 2ull * c.batch)
    refuse_key("pool_buffers", std::to_string(o.pool_buffers) +
                                   " cannot keep a ring full: needs at least ring_descriptors + 2 x batch = " +
                                   std::to_string(o.ring_descriptors + 2ull * c.batch));
  if (r.has("pairs") && c.pairs != 1) refuse_key("pairs", "must be 1 for raw: use tx_queues and rx_queues");
  check_forward(c, r);
}

}  // namespace spiral
