#include "transports/raw/raw_receiver.hpp"
#include "transports/raw/raw_options.hpp"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include <cstring>

#include "datagram/header.hpp"
#include "sys/errors.hpp"

namespace spiral::raw {

namespace {
constexpr uint32_t kPublishEvery = 32;
constexpr unsigned kTrackerWindowLog2 = 20;  // 2^20 sequence numbers of history per stream and queue

unsigned ring_size(uint32_t batch) {
  unsigned n = 1024;
  while (n < 4 * batch) n <<= 1;
  return n;
}
}  // namespace

struct RawReceiver::Lane {
  explicit Lane(uint32_t streams) {
    for (uint32_t s = 0; s < streams; ++s) trackers.emplace_back(kTrackerWindowLog2);
  }
  std::vector<datagram::SequenceTracker> trackers;  // by stream
  std::vector<gpu::DatagramAssembler*> gpu;          // by stream; empty without a workload
  QueueCounters c;
  uint32_t bursts = 0;
  uint64_t mac_as_sent = 0, mac_swapped = 0, mac_other = 0;  // forward mode
};

RawReceiver::RawReceiver(const Cell& cell, DpdkEnvironment& env, uint32_t run_id, gpu::WindowSink* sink)
    : cell_(cell), env_(env), run_id_(run_id), sink_(sink), slots_(raw_options(cell).rx_queues),
      poller_done_(new std::atomic<bool>[raw_options(cell).rx_queues]) {}

RawReceiver::~RawReceiver() {
  stop();
  for (rte_ring* r : rings_) rte_ring_free(r);
}

void RawReceiver::open() {
  const RawOptions& o = raw_options(cell_);
  if (o.forward.enabled()) {  // the sender writes destination = this port's MAC, source = its own
    check_macs_ = true;
    const Mac tx = env_.tx_mac(), rx = env_.rx_mac();
    std::copy(rx.begin(), rx.end(), as_sent_.begin());
    std::copy(tx.begin(), tx.end(), as_sent_.begin() + 6);
    std::copy(tx.begin(), tx.end(), swapped_.begin());
    std::copy(rx.begin(), rx.end(), swapped_.begin() + 6);
  }
  if (cell_.workload != Workload::none) {
    const gpu::DatagramLayout layout{cell_.payload_bytes, datagram::kHeaderBytes, offsetof(datagram::DatagramHeader, seq)};
    const uint32_t assemblers = o.rx_queues * o.tx_queues;
    if (const memory::Region* region = env_.rx_memory()) {
      // in place: the mbufs' data is registered with CUDA; each goes back once read
      in_place_ = true;
      const gpu::InPlace in_place{region, [](std::span<void* const> frames) {
                                    rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(const_cast<void**>(frames.data())),
                                                          static_cast<unsigned>(frames.size()));
                                  }};
      gpu_ = gpu::GpuReceiver::datagrams(cell_, assemblers, layout, cell_.payload_bytes, cell_.batch, sink_, &in_place);
    } else {
      // staged: one frame at a time into pinned staging
      gpu_ = gpu::GpuReceiver::datagrams(cell_, assemblers, layout, cell_.payload_bytes, 1, sink_);
    }
  }
  for (uint16_t r = 0; r < o.rx_queues; ++r) {
    lanes_.push_back(std::make_unique<Lane>(o.tx_queues));
    for (uint32_t s = 0; gpu_.active() && s < o.tx_queues; ++s) lanes_.back()->gpu.push_back(gpu_.datagram(r * o.tx_queues + s));
    poller_done_[r] = false;
    if (!cell_.cores.list("rx_workers").empty()) {
      rte_ring* ring = rte_ring_create(("sp_rxw" + std::to_string(r)).c_str(), ring_size(cell_.batch),
                                       SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
      if (!ring) throw RunFailure("RX worker ring: " + std::string(rte_strerror(rte_errno)));
      rings_.push_back(ring);
    }
  }
}

void RawReceiver::start() {
  for (uint16_t r = 0; r < raw_options(cell_).rx_queues; ++r) {
    const int poller = CoreMap::for_queue(cell_.cores.rx, r);
    const std::string name = "rx queue " + std::to_string(r);
    if (rings_.empty()) {
      threads_.spawn(poller, name, [this, r](std::stop_token st) { run_alone(r, st); });
    } else {
      threads_.spawn(poller, name, [this, r](std::stop_token st) { run_poller(r, st); });
      threads_.spawn(CoreMap::for_queue(cell_.cores.list("rx_workers"), r), name + " worker",
                     [this, r](std::stop_token st) { run_worker(r, st); });
    }
  }
}

void RawReceiver::stop() { threads_.stop(); }

std::vector<std::vector<datagram::SequenceStats>> RawReceiver::stream_stats() const {
  std::vector<std::vector<datagram::SequenceStats>> out;
  for (const auto& lane : lanes_) {
    out.emplace_back();
    for (const auto& t : lane->trackers) out.back().push_back(t.stats());
  }
  return out;
}

void RawReceiver::mac_counts(ForwardFigures& f) const {
  for (const auto& lane : lanes_) {
    f.mac_as_sent += lane->mac_as_sent;
    f.mac_swapped += lane->mac_swapped;
    f.mac_other += lane->mac_other;
  }
}

// One burst from the next of this core's device queues (round robin).
uint16_t RawReceiver::receive(uint16_t r, uint16_t& next_queue, rte_mbuf** burst) const {
  const uint16_t queue = next_queue;
  next_queue = static_cast<uint16_t>(next_queue + raw_options(cell_).rx_queues);
  if (next_queue >= env_.device_queues()) next_queue = r;
  return rte_eth_rx_burst(env_.rx_port(), queue, burst, static_cast<uint16_t>(cell_.batch));
}

// The frame's UDP payload (a sequenced datagram) to its stream's assembler: in place (kept: the
// assembler frees the mbuf once its window completed) or copied into staging.
void RawReceiver::gpu_frame(Lane& lane, rte_mbuf* m, uint16_t stream, uint64_t seq, bool& kept) const {
  gpu::DatagramAssembler* a = lane.gpu[stream];
  const std::byte* datagram = rte_pktmbuf_mtod_offset(m, const std::byte*, kHeadersBytes);
  if (in_place_) {
    const memory::Region& region = *env_.rx_memory();
    if (datagram < region.data() || datagram + cell_.payload_bytes > region.data() + region.mapped())
      throw RunFailure("raw: a received frame lies outside the registered receive memory (pool " +
                       std::string(m->pool ? m->pool->name : "?") + "): the GPU cannot read it in place; use memory host");
    a->add_in_place(datagram, seq, m);
    kept = true;
    return;
  }
  std::byte* at = a->space(cell_.payload_bytes);
  std::memcpy(at, datagram, cell_.payload_bytes);
  a->add(at, seq);
  a->end_burst(cell_.payload_bytes);
}

void RawReceiver::finish_gpu(Lane& lane) const {
  for (gpu::DatagramAssembler* a : lane.gpu) a->finish();
}

uint16_t RawReceiver::account(Lane& lane, rte_mbuf** burst, uint16_t n) const {
  const uint32_t expected = env_.frame_bytes();
  const uint16_t streams = static_cast<uint16_t>(raw_options(cell_).tx_queues);
  QueueCounters& c = lane.c;
  uint16_t to_free = 0;
  for (uint16_t i = 0; i < n; ++i) {
    if (i + 1 < n) rte_prefetch0(rte_pktmbuf_mtod(burst[i + 1], void*));
    rte_mbuf* m = burst[i];
    bool kept = false;
    const ParsedFrame f =
        parse_frame(rte_pktmbuf_mtod(m, const uint8_t*), m->data_len, m->pkt_len, expected, run_id_, streams);
    // ours and whole: the GPU gets warm-up frames too (it is warm when the window opens)
    if (!lane.gpu.empty() && f.kind != FrameKind::foreign && f.kind != FrameKind::malformed && m->nb_segs == 1)
      gpu_frame(lane, m, f.stream, f.seq, kept);
    if (!kept) burst[to_free++] = m;
    if (f.kind == FrameKind::foreign) {
      ++c.foreign;
      continue;
    }
    if (f.kind == FrameKind::malformed) {
      ++c.malformed;
      continue;
    }
    if (check_macs_) {
      const uint8_t* head = rte_pktmbuf_mtod(m, const uint8_t*);
      if (std::memcmp(head, swapped_.data(), 12) == 0) ++lane.mac_swapped;
      else if (std::memcmp(head, as_sent_.data(), 12) == 0) ++lane.mac_as_sent;
      else ++lane.mac_other;
    }
    if (!f.measured) {
      PhaseCount& warm = c.by_phase[index(Phase::warmup)];
      ++warm.packets;
      warm.bytes += m->pkt_len;
      continue;
    }
    const datagram::Arrival a = lane.trackers[f.stream].observe(f.seq);
    if (a == datagram::Arrival::fresh || a == datagram::Arrival::late) {
      PhaseCount& measured = c.by_phase[index(Phase::measure)];
      ++measured.packets;
      measured.bytes += m->pkt_len;
      if (a == datagram::Arrival::late) ++c.reordered;
    } else if (a == datagram::Arrival::duplicate) {
      ++c.duplicated;
    } else {
      ++c.stale;
    }
  }
  return to_free;
}

void RawReceiver::run_alone(uint16_t r, std::stop_token stop) {
  Lane& lane = *lanes_[r];
  std::vector<rte_mbuf*> burst(cell_.batch);
  uint16_t next_queue = r;
  while (!stop.stop_requested()) {
    const uint16_t n = receive(r, next_queue, burst.data());
    if (n == 0) {
      if (lane.bursts) {  // idle: publish what is pending
        slots_.publish(r, lane.c);
        lane.bursts = 0;
      }
      continue;
    }
    rte_pktmbuf_free_bulk(burst.data(), account(lane, burst.data(), n));
    if (++lane.bursts % kPublishEvery == 0) slots_.publish(r, lane.c);
  }
  finish_gpu(lane);
  lane.c.finished = true;
  slots_.publish(r, lane.c);
}

// Poll-mode thread behind a worker: receive and hand over; waits for room rather than drop,
// so a slow worker shows as the port's imissed, where a NIC would drop.
void RawReceiver::run_poller(uint16_t r, std::stop_token stop) {
  rte_ring* ring = rings_[r];
  std::vector<rte_mbuf*> burst(cell_.batch);
  uint16_t next_queue = r;
  while (!stop.stop_requested()) {
    const uint16_t n = receive(r, next_queue, burst.data());
    unsigned queued = 0;
    while (queued < n && !stop.stop_requested())
      queued += rte_ring_enqueue_burst(ring, reinterpret_cast<void* const*>(burst.data() + queued), n - queued,
                                       nullptr);
    if (queued < n) rte_pktmbuf_free_bulk(burst.data() + queued, n - queued);
  }
  poller_done_[r].store(true, std::memory_order_release);
}

void RawReceiver::run_worker(uint16_t r, std::stop_token) {
  Lane& lane = *lanes_[r];
  rte_ring* ring = rings_[r];
  std::vector<rte_mbuf*> burst(cell_.batch);
  for (;;) {  // until the poller returned and the ring is empty: every received frame is accounted
    const bool done = poller_done_[r].load(std::memory_order_acquire);
    const unsigned n = rte_ring_dequeue_burst(ring, reinterpret_cast<void**>(burst.data()), cell_.batch, nullptr);
    if (n == 0) {
      if (done) break;
      if (lane.bursts) {
        slots_.publish(r, lane.c);
        lane.bursts = 0;
      }
      rte_pause();
      continue;
    }
    rte_pktmbuf_free_bulk(burst.data(), account(lane, burst.data(), static_cast<uint16_t>(n)));
    if (++lane.bursts % kPublishEvery == 0) slots_.publish(r, lane.c);
  }
  finish_gpu(lane);
  lane.c.finished = true;
  slots_.publish(r, lane.c);
}

}  // namespace spiral::raw
