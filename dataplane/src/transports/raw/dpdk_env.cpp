#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/raw_options.hpp"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "sys/affinity.hpp"
#include "transports/raw/mbuf_pool.hpp"
#include "transports/raw/netns.hpp"

namespace spiral::raw {

namespace {

constexpr uint32_t kPoolCache = 256;

std::string dpdk_error(int rc) { return rte_strerror(rc < 0 ? -rc : rc); }

std::vector<int> main_cpus(const Cell& cell) {
  if (cell.cores.master >= 0) return {cell.cores.master};
  return startup_cores();
}

// The port's PHY counters out of its extended statistics: mlx5 names them as its kernel twin's
// ethtool -S does, so the one parser (phy_sample) reads both.
PhySample port_phy(uint16_t port) {
  std::map<std::string, uint64_t> stats;
  for (const char* name : {"tx_bytes_phy", "rx_bytes_phy", "tx_packets_phy", "rx_packets_phy"}) {
    uint64_t id = 0, value = 0;
    if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0 && rte_eth_xstats_get_by_id(port, &id, &value, 1) == 1)
      stats[name] = value;
  }
  if (stats.empty()) return phy_sample(std::nullopt, "the port's driver names no PHY counters (tx_bytes_phy, rx_bytes_phy)");
  return phy_sample(stats, "");
}

std::string port_name(uint16_t port) {
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  if (rte_eth_dev_get_name_by_port(port, name) != 0) return "port " + std::to_string(port);
  return name;
}

uint64_t minus(uint64_t after, uint64_t before) { return after >= before ? after - before : 0; }

}  // namespace

PortDeltas deltas(const PortSnapshot& before, const PortSnapshot& after) {
  PortDeltas d;
  d.imissed = minus(after.rx.imissed, before.rx.imissed);
  d.ierrors = minus(after.rx.ierrors, before.rx.ierrors);
  d.rx_nombuf = minus(after.rx.rx_nombuf, before.rx.rx_nombuf);
  d.oerrors = minus(after.tx.oerrors, before.tx.oerrors);
  d.tx_wire = wire_delta("", after.tx_name, before.tx_phy, after.tx_phy);
  d.rx_wire = wire_delta("", after.rx_name, before.rx_phy, after.rx_phy);
  d.forward_imissed = minus(after.forward_rx.imissed, before.forward_rx.imissed);
  d.forward_rx_nombuf = minus(after.forward_rx.rx_nombuf, before.forward_rx.rx_nombuf);
  d.forward_oerrors = minus(after.forward_tx.oerrors, before.forward_tx.oerrors);
  return d;
}

DpdkEnvironment::DpdkEnvironment(const Cell& cell)
    : cell_(cell),
      tx_spec_(parse_port("tx_port", raw_options(cell).tx_port)),
      rx_spec_(parse_port("rx_port", raw_options(cell).rx_port)),
      frame_bytes_(raw::frame_bytes(cell.payload_bytes)) {
  if (const ForwardOptions& f = raw_options(cell).forward; f.enabled()) {
    forwarding_ = true;
    fwd_rx_spec_ = parse_port("forward_rx_port", f.rx_port);
    fwd_tx_spec_ = parse_port("forward_tx_port", f.tx_port);
  }
  pools_ = pool_sizes(cell, tx_spec_, rx_spec_, frame_bytes_);
  plan_ = plan_eal(cell, tx_spec_, rx_spec_, pools_, read_hugepages(), main_cpus(cell),
                   "spiral-" + std::to_string(::getpid()));
  if (const char* level = std::getenv("SPIRAL_DPDK_LOG"))  // e.g. debug, when a driver refuses
    std::replace(plan_.args.begin(), plan_.args.end(), std::string("--log-level=4"), "--log-level=" + std::string(level));
  // Escape hatch for hosts with DPDK in an unusual place: "-d /opt/dpdk/pmds --huge-dir /mnt/huge".
  if (const char* extra = std::getenv("SPIRAL_EAL_ARGS")) {
    std::istringstream words(extra);
    for (std::string w; words >> w;) plan_.args.push_back(w);
  }
  std::vector<char*> argv;
  for (auto& a : plan_.args) argv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(argv.size()), argv.data()) < 0)
    throw RunFailure("DPDK EAL init failed: " + dpdk_error(rte_errno) +
                     (rte_errno == EALREADY ? " (once per process)" : ""));
  eal_ready_ = true;
  try {
    // The receiving port first, as for starting: a memif server must own its socket before the
    // client in the same process looks it up.
    // Forward mode: the receiver's port (a memif server), the forwarder's RX port (the sender's
    // server), the forwarder's TX port (the receiver's client), then the sender's port.
    rx_port_ = probe(rx_spec_, "rx_port");
    if (forwarding_) {
      fwd_rx_port_ = probe(fwd_rx_spec_, "forward_rx_port");
      fwd_tx_port_ = probe(fwd_tx_spec_, "forward_tx_port");
    }
    tx_port_ = tx_spec_.devargs == rx_spec_.devargs ? rx_port_ : probe(tx_spec_, "tx_port");
    const RawOptions& o = raw_options(cell);
    // net_ring: the receiver reads the sender's mbufs, so they go where received frames belong
    tx_in_rx_memory_ = o.memory == BufferMemory::host_pinned && !forwarding_ && receiver_gets_sender_mbufs(tx_spec_);
    if (o.memory == BufferMemory::host_pinned) make_rx_memory();
    for (uint32_t q = 0; q < o.tx_queues; ++q)
      tx_pools_.push_back(make_pool("tx" + std::to_string(q), pools_.tx_pool_buffers, pools_.tx_data_room, tx_in_rx_memory_));
    for (uint32_t q = 0; q < o.rx_queues; ++q)
      rx_pools_.push_back(make_pool("rx" + std::to_string(q), pools_.rx_pool_buffers, pools_.rx_data_room, !forwarding_));
    if (pools_.spare_pool_buffers)
      spare_pool_ = make_pool("spare", pools_.spare_pool_buffers, pools_.rx_data_room, !forwarding_);
    if (tx_port_ == rx_port_) {
      configure(tx_port_, tx_spec_, true, true);
    } else {
      configure(tx_port_, tx_spec_, true, false);
      configure(rx_port_, rx_spec_, false, true);
    }
    if (forwarding_) make_forward_pools();
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

DpdkEnvironment::~DpdkEnvironment() { release(); }

void DpdkEnvironment::release() {
  if (!eal_ready_) return;
  // DPDK 22.11's memif frees a port's interrupt handle while the EAL interrupt thread may still
  // be handling the peer's disconnect on it (seen: a segfault in rte_intr_fd_get at teardown,
  // about one run in ten under load). Stop everything first, and give that thread time to see
  // each disconnect before the next port goes.
  const bool settle = tx_spec_.driver == "net_memif" || rx_spec_.driver == "net_memif" ||
                      fwd_rx_spec_.driver == "net_memif" || fwd_tx_spec_.driver == "net_memif";
  auto in_namespace_of = [](const std::string& netns, auto&& step) {
    try {
      NetnsGuard in_namespace(netns);  // af_xdp detaches its XDP program by interface index: in its namespace
      step();
    } catch (const std::exception&) {
      // the namespace is gone (and with it the interface): nothing of the port is left
    }
  };
  if (started_)
    for (const auto& [port, netns] : opened_) in_namespace_of(netns, [port = port] { rte_eth_dev_stop(port); });
  for (const auto& [port, netns] : opened_) {
    if (settle) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    in_namespace_of(netns, [port = port] { rte_eth_dev_close(port); });
  }
  if (settle) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  opened_.clear();
  started_ = false;
  for (auto* pool : tx_pools_) rte_mempool_free(pool);
  for (auto* pool : rx_pools_) rte_mempool_free(pool);
  rte_mempool_free(spare_pool_);
  rte_mempool_free(fwd_pool_);
  rte_mempool_free(fwd_spare_pool_);
  fwd_pool_ = fwd_spare_pool_ = nullptr;
  tx_pools_.clear();
  rx_pools_.clear();
  spare_pool_ = nullptr;
  rx_memory_.reset();  // after the ports and pools that used it, before the EAL goes
  // The EAL makes its runtime directory (/var/run/dpdk/<prefix>) even with --in-memory or
  // --no-shconf, and leaves it behind, empty: remove it so runs leave nothing.
  const std::string runtime_dir = rte_eal_get_runtime_dir();
  rte_eal_cleanup();
  ::rmdir(runtime_dir.c_str());
  eal_ready_ = false;
}

uint16_t DpdkEnvironment::probe(const PortSpec& spec, const std::string& key) {
  if (spec.kind == PortSpec::Kind::vdev) {
    NetnsGuard in_namespace(spec.netns);
    const int rc = rte_dev_probe(spec.devargs.c_str());
    if (rc < 0)
      throw BadInput(key + " \"" + spec.devargs + "\": the " + spec.driver + " driver refused it (" + dpdk_error(rc) +
                     "; the driver's own reason, if it gave one, is on the lines above)");
  }
  uint16_t port = 0;
  if (rte_eth_dev_get_port_by_name(spec.name.c_str(), &port) != 0) {
    if (spec.kind == PortSpec::Kind::pci)
      throw BadInput(key + " " + spec.name + ": no DPDK port for this PCI device (absent, or bound to a driver "
                     "DPDK cannot use; mlx5 ports stay on mlx5_core, others need vfio-pci)");
    throw BadInput(key + " \"" + spec.devargs + "\": probed, but no ethdev port named " + spec.name);
  }
  opened_.emplace_back(port, spec.netns);
  return port;
}

void DpdkEnvironment::make_rx_memory() {
  uint64_t bytes =
      uint64_t{raw_options(cell_).rx_queues} * ExternalMemory::bytes_for(pools_.rx_pool_buffers, pools_.rx_data_room) +
      ExternalMemory::bytes_for(pools_.spare_pool_buffers, pools_.rx_data_room);
  if (tx_in_rx_memory_)
    bytes += uint64_t{raw_options(cell_).tx_queues} * ExternalMemory::bytes_for(pools_.tx_pool_buffers, pools_.tx_data_room);
  // registered with CUDA when a GPU reads the frames in place
  bool for_gpu = cell_.workload != Workload::none;
  if (forwarding_) {  // the forwarder's pool only: the sender and receiver stay in DPDK's memory
    bytes = ExternalMemory::bytes_for(pools_.forward_pool_buffers, pools_.rx_data_room);
    for_gpu = on_gpu(raw_options(cell_).forward.work);
  }
  const unsigned registrations = for_gpu ? memory::kRegisterCuda : memory::kRegisterNone;
  const char* pools = forwarding_ ? "forwarder" : tx_in_rx_memory_ ? "receive and send (net_ring)" : "receive";
  rx_memory_ = std::make_unique<ExternalMemory>(
      memory::allocate({BufferMemory::host_pinned, bytes, std::string("the ") + pools + " mbuf pools' data", registrations}),
      "host_pinned receive memory");
  // ports that DMA (PCI) need the memory mapped; virtual devices copy with the CPU
  for (const auto& [port, netns] : opened_) {
    const PortSpec& spec = port == rx_port_               ? rx_spec_
                           : forwarding_ && port == fwd_rx_port_ ? fwd_rx_spec_
                           : forwarding_ && port == fwd_tx_port_ ? fwd_tx_spec_
                                                                 : tx_spec_;
    if (spec.kind != PortSpec::Kind::pci) continue;
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(port, &info) != 0 || !info.device) continue;
    rx_memory_->dma_map(info.device, spec.name);
  }
  std::fprintf(stderr, "raw: %s mbuf data in %llu KiB of host_pinned external memory%s\n", pools,
               static_cast<unsigned long long>(rx_memory_->region().mapped() >> 10),
               rx_memory_->region().cuda_registered() ? ", registered with CUDA" : "");
}

void DpdkEnvironment::make_forward_pools() {
  fwd_pool_ = make_pool("fwd", pools_.forward_pool_buffers, pools_.rx_data_room, true);
  fwd_spare_pool_ = make_pool("fwd_spare", pools_.forward_spare_buffers, pools_.rx_data_room, false);
  configure(fwd_rx_port_, fwd_rx_spec_, false, true, fwd_pool_);
  configure(fwd_tx_port_, fwd_tx_spec_, true, false, fwd_spare_pool_);
}

rte_mempool* DpdkEnvironment::make_pool(const std::string& name, uint32_t buffers, uint32_t data_room, bool external) {
  const unsigned cache = std::min<unsigned>(kPoolCache, buffers / 4);
  if (external && rx_memory_)
    return rx_memory_->make_pool("sp_" + name, buffers, data_room, cache, static_cast<int>(rte_socket_id()),
                                 kHeadersBytes + datagram::kHeaderBytes);  // the window's bytes: 16-byte loads
  rte_mempool* pool = create_mbuf_pool("sp_" + name, buffers, cache, static_cast<uint16_t>(data_room),
                                       static_cast<int>(rte_socket_id()), /*dense=*/!plan_.hugepages);
  if (pool) return pool;
  // The pools draw on the EAL's memory (eal_plan.cpp), not on a container limit: say which.
  const std::string pools = "about " + std::to_string(pools_.bytes >> 20) + " MiB of pools";
  const std::string lower = "lower ring_descriptors or pool_buffers (rawEthernet.ringDescriptors, poolBuffers)";
  throw BadInput("mbuf pool " + name + " (" + std::to_string(buffers) + " x " + std::to_string(data_room) +
                 " B): " + dpdk_error(rte_errno) +
                 (plan_.hugepages ? " (huge pages: too few free for " + pools + "; " + lower + ", or free huge pages)"
                                  : " (no huge pages: the EAL was given -m " + std::to_string(plan_.memory_mb) +
                                        " MiB for " + pools + "; " + lower + ", or give the pod huge pages)"));
}

void DpdkEnvironment::configure(uint16_t port, const PortSpec& spec, bool transmits, bool receives,
                                rte_mempool* rx_pool) {
  NetnsGuard in_namespace(spec.netns);  // af_packet/af_xdp look the interface up by name
  const std::string who = (transmits ? "tx_port " : "rx_port ") + spec.devargs;
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(port, &info); rc != 0)
    throw RunFailure(who + ": device info: " + dpdk_error(rc));
  const uint16_t queues = device_queues();
  if (queues > info.max_tx_queues || queues > info.max_rx_queues)
    throw BadInput(who + " (" + info.driver_name + ") has at most " +
                   std::to_string(std::min(info.max_tx_queues, info.max_rx_queues)) + " queues each way; this cell needs " +
                   std::to_string(queues) + " (the larger of tx_queues and rx_queues)");
  rte_eth_conf conf{};
  if (receives && queues > 1 && info.flow_type_rss_offloads) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
  }
  if (transmits && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE))
    conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;  // one pool per queue, refcount 1
  const uint32_t mtu = cell_.payload_bytes + kIpv4Bytes + kUdpBytes;
  if (mtu > RTE_ETHER_MTU) {
    const bool fits = mtu <= info.max_mtu && mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN <= info.max_rx_pktlen;
    if (fits) {
      conf.rxmode.mtu = mtu;
    } else if (spec.kind == PortSpec::Kind::pci) {
      throw BadInput(who + ": payload_bytes " + std::to_string(cell_.payload_bytes) + " needs MTU " +
                     std::to_string(mtu) + ", the port allows " +
                     std::to_string(std::min<uint32_t>(info.max_mtu, info.max_rx_pktlen - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN)));
    }
    // Virtual devices: the kernel interface's MTU (veth) or the PMD's buffer size (framesz,
    // bsize) decides; pool_sizes() checked what can be checked.
  }
  if (int rc = rte_eth_dev_configure(port, queues, queues, &conf); rc != 0)
    throw RunFailure(who + ": configure " + std::to_string(queues) + " queues: " + dpdk_error(rc));
  uint16_t rx_desc = static_cast<uint16_t>(raw_options(cell_).ring_descriptors);
  uint16_t tx_desc = rx_desc;
  rte_eth_dev_adjust_nb_rx_tx_desc(port, &rx_desc, &tx_desc);
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  const int socket = rte_eth_dev_socket_id(port) < 0 ? 0 : rte_eth_dev_socket_id(port);
  for (uint16_t q = 0; q < queues; ++q) {
    rte_mempool* pool = rx_pool ? rx_pool : receives ? rx_pools_[q % raw_options(cell_).rx_queues] : spare_pool_;
    if (int rc = rte_eth_rx_queue_setup(port, q, rx_desc, socket, nullptr, pool); rc != 0)
      throw BadInput(who + ": RX queue " + std::to_string(q) + " setup (" + std::to_string(rx_desc) +
                     " descriptors): " + dpdk_error(rc));
    if (int rc = rte_eth_tx_queue_setup(port, q, tx_desc, socket, &txconf); rc != 0)
      throw BadInput(who + ": TX queue " + std::to_string(q) + " setup (" + std::to_string(tx_desc) +
                     " descriptors): " + dpdk_error(rc));
  }
}

void DpdkEnvironment::start_ports(std::chrono::milliseconds link_timeout) {
  // The receiving port first: a memif client (the usual TX side) fails to start without its server.
  std::vector<std::pair<uint16_t, const PortSpec*>> ports = {{rx_port_, &rx_spec_}};
  if (forwarding_) {  // the same order as probing: memif servers before their clients
    ports.push_back({fwd_rx_port_, &fwd_rx_spec_});
    ports.push_back({fwd_tx_port_, &fwd_tx_spec_});
  }
  if (rx_port_ != tx_port_) ports.push_back({tx_port_, &tx_spec_});
  for (auto [port, spec] : ports) {
    NetnsGuard in_namespace(spec->netns);
    if (int rc = rte_eth_dev_start(port); rc != 0)
      throw RunFailure("port " + spec->devargs + ": start: " + dpdk_error(rc));
    started_ = true;
    if (port == rx_port_ || (forwarding_ && port == fwd_rx_port_))
      rte_eth_promiscuous_enable(port);  // not every PMD has it; frames go to its MAC anyway
  }
  const auto until = std::chrono::steady_clock::now() + link_timeout;
  for (auto [port, spec] : ports) {
    for (;;) {
      rte_eth_link link{};
      rte_eth_link_get_nowait(port, &link);
      if (link.link_status == RTE_ETH_LINK_UP) break;
      throw_if_signalled();
      if (std::chrono::steady_clock::now() > until)
        throw RunFailure("port " + spec->devargs + ": link still down after " +
                         std::to_string(link_timeout.count()) + " ms (memif: is the peer there? veth: is it up?)");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

Mac DpdkEnvironment::mac(uint16_t port) {
  rte_ether_addr a{};
  rte_eth_macaddr_get(port, &a);
  Mac m;
  std::copy(std::begin(a.addr_bytes), std::end(a.addr_bytes), m.begin());
  return m;
}

PortSnapshot DpdkEnvironment::snapshot() const {
  PortSnapshot s;
  rte_eth_stats_get(rx_port_, &s.rx);
  rte_eth_stats_get(tx_port_, &s.tx);
  if (forwarding_) {
    rte_eth_stats_get(fwd_rx_port_, &s.forward_rx);
    rte_eth_stats_get(fwd_tx_port_, &s.forward_tx);
  }
  s.tx_name = port_name(tx_port_);
  s.rx_name = port_name(rx_port_);
  s.tx_phy = port_phy(tx_port_);
  s.rx_phy = port_phy(rx_port_);
  return s;
}

void DpdkEnvironment::describe(RawFigures& f) const {
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(tx_port_, &info) == 0) f.tx_driver = info.driver_name;
  if (rte_eth_dev_info_get(rx_port_, &info) == 0) f.rx_driver = info.driver_name;
  f.hugepages = plan_.hugepages;
  f.eal_args = plan_.args;
}

}  // namespace spiral::raw
