#include "transports/raw/eal_plan.hpp"
#include "transports/raw/raw_options.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "datagram/header.hpp"
#include "gpu/receive_path.hpp"
#include "sys/errors.hpp"

namespace spiral::raw {

namespace {
constexpr uint32_t kHeadroom = 128;           // RTE_PKTMBUF_HEADROOM in Debian's build
constexpr uint32_t kMinDataRoom = 2048 + kHeadroom;  // RTE_MBUF_DEFAULT_BUF_SIZE
constexpr uint32_t kAfPacketOverhead = 32;    // TPACKET2_HDRLEN - sizeof(sockaddr_ll)
constexpr uint64_t kMbufOverhead = 320;       // struct rte_mbuf, mempool header and alignment
constexpr uint64_t kEalOverheadMb = 192;      // EAL heap, rings, PMD state

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) {
    if (!s.empty()) s += ',';
    s += std::to_string(c);
  }
  return s;
}
}  // namespace

Hugepages read_hugepages() {
  Hugepages h;
  std::ifstream mounts("/proc/mounts");
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    std::string dev, dir, type;
    fields >> dev >> dir >> type;
    if (type == "hugetlbfs") h.mounted = true;
  }
  std::ifstream meminfo("/proc/meminfo");
  uint64_t free_pages = 0, page_kb = 0;
  for (std::string key; meminfo >> key;) {
    uint64_t value = 0;
    meminfo >> value;
    if (key == "HugePages_Free:") free_pages = value;
    if (key == "Hugepagesize:") page_kb = value;
    meminfo.ignore(256, '\n');
  }
  h.free_bytes = free_pages * page_kb * 1024;
  return h;
}

uint32_t af_packet_frame_size(const std::string& devargs) {
  const auto at = devargs.find(",framesz=");
  if (at == std::string::npos) return 2048;
  return static_cast<uint32_t>(std::stoul(devargs.substr(at + 9)));
}

PoolSizes pool_sizes(const Cell& cell, const PortSpec& tx, const PortSpec& rx, uint32_t frame_bytes) {
  PoolSizes p;
  uint32_t rx_room = std::max(frame_bytes + kHeadroom, kMinDataRoom);
  const ForwardOptions& fwd = raw_options(cell).forward;
  std::vector<PortSpec> forward_ports;
  if (fwd.enabled()) forward_ports = {parse_port("forward_rx_port", fwd.rx_port), parse_port("forward_tx_port", fwd.tx_port)};
  std::vector<const PortSpec*> ports = {&tx, &rx};
  for (const PortSpec& p : forward_ports) ports.push_back(&p);
  for (const PortSpec* port : ports) {
    if (port->driver != "net_af_packet") continue;
    uint32_t framesz = 0;
    try {
      framesz = af_packet_frame_size(port->devargs);
    } catch (const std::exception&) {
      throw BadInput("port \"" + port->devargs + "\": framesz= must be a number");
    }
    if (frame_bytes + kAfPacketOverhead > framesz)
      throw BadInput("port \"" + port->devargs + "\": af_packet framesz=" + std::to_string(framesz) +
                     " carries frames up to " + std::to_string(framesz - std::min(framesz, kAfPacketOverhead)) +
                     " bytes, payload_bytes " + std::to_string(cell.payload_bytes) + " makes " +
                     std::to_string(frame_bytes) + "-byte frames: add framesz=10240,blocksz=20480");
    const bool receives = port != &tx || &tx == &rx;  // every port but the sender's receives into its pool
    if (receives) rx_room = std::max(rx_room, framesz - kAfPacketOverhead + kHeadroom);
  }
  p.tx_data_room = std::max(frame_bytes + kHeadroom, kMinDataRoom);
  p.rx_data_room = rx_room;
  const RawOptions& o = raw_options(cell);
  p.device_queues = std::max(o.tx_queues, o.rx_queues);
  const uint32_t per_rx_core = (p.device_queues + o.rx_queues - 1) / o.rx_queues;
  p.rx_pool_buffers = o.pool_buffers + (per_rx_core - 1) * o.ring_descriptors;
  if (cell.workload != Workload::none && o.memory == BufferMemory::host_pinned) {
    // In place, a window's frames stay in their mbufs until its kernels completed: up to
    // max_in_flight + 1 windows per assembler (one per stream this RX queue may see) on top of
    // what keeps the ring full, so holding them never starves the ring.
    const uint64_t slots = gpu::window_bytes(cell) / (cell.payload_bytes - datagram::kHeaderBytes) + 1;
    const uint64_t held = (uint64_t{cell.max_in_flight} + 1) * slots * o.tx_queues + 2ull * cell.batch;
    if (held > (1u << 22))
      throw BadInput("workload: reading " + std::to_string(cell.payload_bytes) + " B frames in place holds " +
                     std::to_string(held) + " mbufs per RX queue (max_in_flight + 1 windows of " +
                     std::to_string(slots) + " frames per stream): lower workload_batch_bytes or max_in_flight, or "
                     "use memory host (staged)");
    p.gpu_held_buffers = static_cast<uint32_t>(held);
  }
  // the held frames come from the pool the received frames live in
  p.tx_pool_buffers = o.pool_buffers;
  (receiver_gets_sender_mbufs(tx) ? p.tx_pool_buffers : p.rx_pool_buffers) += p.gpu_held_buffers;
  // af_xdp fills 4096 RX descriptors whatever the ring size, and its TX copies frames into
  // buffers of that same (RX queue's) pool: the spare pool must hold both.
  p.spare_pool_buffers = tx.devargs == rx.devargs ? 0 : p.device_queues * (o.ring_descriptors + 4096) + 1024;
  if (fwd.enabled()) {
    // every slot of every pipeline full, each RX ring full, and room to refill it
    p.forward_pool_buffers = fwd.pipelines * (o.ring_descriptors + (kForwardSlots + 2) * cell.batch) + o.pool_buffers;
    p.forward_spare_buffers = fwd.pipelines * (o.ring_descriptors + 4096) + 1024;
  }
  p.bytes = uint64_t{p.tx_pool_buffers} * o.tx_queues * (p.tx_data_room + kMbufOverhead) +
            (uint64_t{p.rx_pool_buffers} * o.rx_queues + p.spare_pool_buffers + p.forward_pool_buffers +
             p.forward_spare_buffers) * (p.rx_data_room + kMbufOverhead);
  return p;
}

bool receiver_gets_sender_mbufs(const PortSpec& tx) { return tx.driver == "net_ring"; }

EalPlan plan_eal(const Cell& cell, const PortSpec& tx, const PortSpec& rx, const PoolSizes& pools,
                 const Hugepages& huge, const std::vector<int>& main_cpus, const std::string& file_prefix) {
  EalPlan plan;
  plan.memory_mb = pools.bytes / (1 << 20) * 5 / 4 + kEalOverheadMb;
  plan.hugepages = !raw_options(cell).no_huge && huge.mounted;
  if (plan.hugepages && huge.free_bytes < plan.memory_mb << 20)
    throw BadInput("hugepages: this run needs about " + std::to_string(plan.memory_mb) + " MiB, " +
                   std::to_string(huge.free_bytes >> 20) +
                   " MiB are free (raise vm.nr_hugepages, lower pool_buffers, or pass --no-huge)");
  auto& a = plan.args;
  // Nothing of the run may outlive it: --in-memory keeps hugepage files and the runtime
  // directory off the disk; --no-huge (legacy memory, which --in-memory refuses) has no
  // hugepage files, and --no-shconf drops the rest.
  a = {"spiral-dataplane", "--file-prefix=" + file_prefix, plan.hugepages ? "--in-memory" : "--no-shconf",
       "--no-telemetry", "--lcores=0@(" + cpu_list(main_cpus) + ")", "--log-level=4"};
  if (!plan.hugepages) {
    a.push_back("--no-huge");
    a.push_back("-m");
    a.push_back(std::to_string(plan.memory_mb));
  }
  bool any_pci = false;
  std::vector<PortSpec> ports = {tx};
  if (rx.devargs != tx.devargs) ports.push_back(rx);
  if (const ForwardOptions& fwd = raw_options(cell).forward; fwd.enabled()) {
    ports.push_back(parse_port("forward_rx_port", fwd.rx_port));
    ports.push_back(parse_port("forward_tx_port", fwd.tx_port));
  }
  for (const PortSpec& port : ports) {
    if (port.kind != PortSpec::Kind::pci) continue;
    any_pci = true;
    a.push_back("-a");
    a.push_back(port.devargs);
  }
  if (!any_pci) a.push_back("--no-pci");
  return plan;
}

}  // namespace spiral::raw
