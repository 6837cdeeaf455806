#include "transports/raw/raw_sender.hpp"
#include "transports/raw/raw_options.hpp"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <algorithm>

#include "sys/errors.hpp"
#include "sys/clock.hpp"
#include "engine/token_bucket.hpp"

namespace spiral::raw {

namespace {

constexpr uint32_t kPublishEvery = 32;  // bursts between counter publications

struct TemplateArgs {
  FrameSpec spec;
  uint32_t frame_bytes;
};

// rte_mempool_obj_iter callback: the frame goes where rte_pktmbuf_reset puts the data.
void write_template(rte_mempool*, void* opaque, void* obj, unsigned) {
  const auto* args = static_cast<const TemplateArgs*>(opaque);
  auto* m = static_cast<rte_mbuf*>(obj);
  build_frame(static_cast<uint8_t*>(m->buf_addr) + RTE_PKTMBUF_HEADROOM, args->spec);
}

unsigned ring_size(uint32_t batch) {  // power of two, room for a few bursts
  unsigned n = 1024;
  while (n < 4 * batch) n <<= 1;
  return n;
}

}  // namespace

// Allocates, paces and numbers bursts of one queue; counts what the caller reports as gone.
struct RawSender::Stamper {
  Stamper(const RawSender& s, uint16_t q)
      : pool(s.env_.tx_pool(q)), frame_bytes(s.env_.frame_bytes()), batch(s.cell_.batch) {
    if (s.cell_.target_mbps) {
      const double bytes_per_second = double(s.cell_.target_mbps) * 1e6 / 8.0 / raw_options(s.cell_).tx_queues;
      // 50 ms of tokens (at least a burst): a poll-mode core that lost its CPU to another
      // process (a shared CI host) catches up; on isolated cores it never stalls that long.
      const double burst = std::max<double>(double(frame_bytes) * batch, bytes_per_second * 0.050);
      bucket.emplace(bytes_per_second, burst, now_ns());
    }
  }
  // Fills `burst`; returns how many frames (0: nothing due yet or the pool is empty).
  uint32_t next(rte_mbuf** burst, Phase p) {
    uint32_t n = batch;
    if (bucket) {
      n = bucket->take(now_ns(), frame_bytes, batch);
      if (n == 0) return 0;
    }
    if (rte_pktmbuf_alloc_bulk(pool, burst, n) != 0) {
      ++c.send_errors;  // every buffer still in flight: the port is the bottleneck
      return 0;
    }
    flags = p == Phase::measure ? datagram::kFlagMeasured : 0;
    for (uint32_t i = 0; i < n; ++i) {
      rte_mbuf* m = burst[i];
      m->data_len = static_cast<uint16_t>(frame_bytes);
      m->pkt_len = frame_bytes;
      stamp(rte_pktmbuf_mtod(m, uint8_t*), seq + i, flags);
    }
    stamped_phase = p;
    return n;
  }
  // `n` frames of the last stamped burst are gone (sent, or handed to the poller).
  void gone(uint32_t n) {
    if (stamped_phase == Phase::measure && n) {
      if (!c.sent_measured) c.first_seq = seq;
      c.sent_measured = true;
      c.last_seq = seq + n - 1;
    }
    seq += n;
    PhaseCount& count = c.by_phase[index(stamped_phase)];
    count.packets += n;
    count.bytes += uint64_t{n} * frame_bytes;
  }

  rte_mempool* pool;
  uint32_t frame_bytes, batch;
  std::optional<TokenBucket> bucket;
  uint64_t seq = 0;
  uint16_t flags = 0;
  Phase stamped_phase = Phase::warmup;
  QueueCounters c;
};

RawSender::RawSender(const Cell& cell, DpdkEnvironment& env, uint32_t run_id)
    : cell_(cell), env_(env), run_id_(run_id), slots_(raw_options(cell).tx_queues),
      worker_done_(new std::atomic<bool>[raw_options(cell).tx_queues]) {}

RawSender::~RawSender() {
  stop();
  for (rte_ring* r : rings_) rte_ring_free(r);
}

void RawSender::open() {
  for (uint16_t q = 0; q < raw_options(cell_).tx_queues; ++q) {
    TemplateArgs args{{env_.tx_mac(), env_.rx_mac(), cell_.payload_bytes, run_id_, q}, env_.frame_bytes()};
    rte_mempool_obj_iter(env_.tx_pool(q), write_template, &args);
    worker_done_[q] = false;
    if (!cell_.cores.list("tx_workers").empty()) {
      rte_ring* r = rte_ring_create(("sp_txw" + std::to_string(q)).c_str(), ring_size(cell_.batch), SOCKET_ID_ANY,
                                    RING_F_SP_ENQ | RING_F_SC_DEQ);
      if (!r) throw RunFailure("TX worker ring: " + std::string(rte_strerror(rte_errno)));
      rings_.push_back(r);
    }
  }
}

void RawSender::start() {
  for (uint16_t q = 0; q < raw_options(cell_).tx_queues; ++q) {
    const int poller = CoreMap::for_queue(cell_.cores.tx, q);
    const std::string name = "tx queue " + std::to_string(q);
    if (rings_.empty()) {
      threads_.spawn(poller, name, [this, q](std::stop_token st) { run_alone(q, st); });
    } else {
      threads_.spawn(poller, name, [this, q](std::stop_token st) { run_poller(q, st); });
      threads_.spawn(CoreMap::for_queue(cell_.cores.list("tx_workers"), q), name + " worker",
                     [this, q](std::stop_token st) { run_worker(q, st); });
    }
  }
}

// Stamps bursts and hands each over with `handoff(frames, n)` (returns how many it took),
// retrying the rest; counts what was taken. Stops at the drain: frames stamped but never taken
// were never counted.
template <typename Handoff>
void RawSender::produce(uint16_t q, std::stop_token stop, Handoff handoff) {
  Stamper s(*this, q);
  std::vector<rte_mbuf*> burst(cell_.batch);
  uint32_t pending = 0, offset = 0, bursts = 0;
  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    if (pending == 0) {
      pending = s.next(burst.data(), p);
      offset = 0;
      if (pending == 0) {
        rte_pause();
        continue;
      }
    }
    const uint32_t taken = handoff(burst.data() + offset, pending);
    s.gone(taken);
    offset += taken;
    pending -= taken;
    if (++bursts % kPublishEvery == 0) slots_.publish(q, s.c);
  }
  if (pending) rte_pktmbuf_free_bulk(burst.data() + offset, pending);
  s.c.finished = true;
  slots_.publish(q, s.c);
}

// One thread does it all: the burst goes straight to the port.
void RawSender::run_alone(uint16_t q, std::stop_token stop) {
  const uint16_t port = env_.tx_port();
  produce(q, stop, [port, q](rte_mbuf** frames, uint32_t n) -> uint32_t {
    return rte_eth_tx_burst(port, q, frames, static_cast<uint16_t>(n));
  });
}

// Worker: bursts go to the poll-mode thread, which sends all of it; so handed over = sent.
void RawSender::run_worker(uint16_t q, std::stop_token stop) {
  rte_ring* ring = rings_[q];
  produce(q, stop, [ring](rte_mbuf** frames, uint32_t n) -> uint32_t {
    return rte_ring_enqueue_burst(ring, reinterpret_cast<void* const*>(frames), n, nullptr);
  });
  worker_done_[q].store(true, std::memory_order_release);
}

// Poll-mode thread behind a worker: send everything the worker queued, until it is done.
void RawSender::run_poller(uint16_t q, std::stop_token stop) {
  const uint16_t port = env_.tx_port();
  rte_ring* ring = rings_[q];
  std::vector<rte_mbuf*> burst(cell_.batch);
  uint32_t pending = 0, offset = 0;
  while (!stop.stop_requested()) {
    if (pending == 0) {
      const bool done = worker_done_[q].load(std::memory_order_acquire);
      pending = rte_ring_dequeue_burst(ring, reinterpret_cast<void**>(burst.data()), cell_.batch, nullptr);
      offset = 0;
      if (pending == 0) {
        if (done) return;  // the worker's last burst is out
        rte_pause();
        continue;
      }
    }
    const uint16_t sent = rte_eth_tx_burst(port, q, burst.data() + offset, static_cast<uint16_t>(pending));
    offset += sent;
    pending -= sent;
  }
  // Stopped before the end (a failed run): free what never went out.
  if (pending) rte_pktmbuf_free_bulk(burst.data() + offset, pending);
  void* left = nullptr;
  while (rte_ring_dequeue(ring, &left) == 0) rte_pktmbuf_free(static_cast<rte_mbuf*>(left));
}

}  // namespace spiral::raw
