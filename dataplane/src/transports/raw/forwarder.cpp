#include "transports/raw/forwarder.hpp"
#include "transports/raw/raw_options.hpp"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <cstring>

#include "sys/clock.hpp"
#include "sys/errors.hpp"

namespace spiral::raw {

namespace {

// A partial burst goes on after the queue was idle this long: l2fwd-nv's accumulation would
// otherwise hold the last frames of a paced run forever.
constexpr int64_t kFlushIdleNs = 100'000;

inline void swap_macs(uint8_t* frame) {
  uint8_t mac[6];
  std::memcpy(mac, frame, 6);
  std::memmove(frame, frame + 6, 6);
  std::memcpy(frame + 6, mac, 6);
}

// l2fwd-nv's -t on the CPU: the core spends this long per frame.
inline void spin_ns(uint32_t ns) {
  if (!ns) return;
  const int64_t until = now_ns() + ns;
  while (now_ns() < until) rte_pause();
}

gpu::BurstWorkMode gpu_mode(ForwardWork w) {
  return w == ForwardWork::gpu_persistent ? gpu::BurstWorkMode::persistent
         : w == ForwardWork::gpu_graphs   ? gpu::BurstWorkMode::graphs
                                          : gpu::BurstWorkMode::kernel;
}

}  // namespace

struct Forwarder::Slot {
  std::vector<rte_mbuf*> frames;
  uint32_t count = 0;
  std::atomic<bool> full{false};  // RX core -> TX core; the TX core clears it once sent
};

struct Forwarder::Pipeline {
  explicit Pipeline(uint32_t burst) : slots(kForwardSlots) {
    for (Slot& s : slots) s.frames.resize(burst);
  }
  std::vector<Slot> slots;
  std::unique_ptr<gpu::BurstWork> gpu;
  std::atomic<bool> rx_done{false};
  std::atomic<uint64_t> received{0}, sent{0}, bursts{0};
};

Forwarder::Forwarder(const Cell& cell, DpdkEnvironment& env) : cell_(cell), env_(env) {}

Forwarder::~Forwarder() { stop(); }

void Forwarder::open() {
  const ForwardOptions& f = raw_options(cell_).forward;
  if (on_gpu(f.work) && !env_.forward_memory())
    throw BadInput(std::string("forward_work ") + to_string(f.work) +
                   ": the forwarder's mbuf data is not mapped into the GPU (memory must be host_pinned)");
  for (uint32_t p = 0; p < f.pipelines; ++p) {
    pipes_.push_back(std::make_unique<Pipeline>(cell_.batch));
    if (on_gpu(f.work))
      pipes_.back()->gpu = gpu::make_burst_work({gpu_mode(f.work), kForwardSlots, cell_.batch, f.work_ns});
  }
}

void Forwarder::start() {
  const bool cpu_work = !on_gpu(raw_options(cell_).forward.work);
  for (uint32_t p = 0; p < pipes_.size(); ++p) {
    const std::string name = "forward pipeline " + std::to_string(p);
    const int rx_core = CoreMap::for_queue(cell_.cores.list("forward_rx"), p);
    const int tx_core = CoreMap::for_queue(cell_.cores.list("forward_tx"), p);
    if (cpu_work && rx_core >= 0 && rx_core == tx_core) {  // two pollers would time-share the core
      threads_.spawn(rx_core, name, [this, p](std::stop_token st) { run_inline(p, st); });
      continue;
    }
    threads_.spawn(tx_core, name + " TX", [this, p](std::stop_token st) { run_tx(p, st); });
    threads_.spawn(rx_core, name + " RX", [this, p](std::stop_token st) { run_rx(p, st); });
  }
}

void Forwarder::stop() {
  if (stopped_) return;
  stopped_ = true;
  threads_.stop();
  for (auto& pipe : pipes_) {
    if (pipe->gpu && !pipe->gpu->stop()) gpu_clean_ = false;
    if (!gpu_clean_) continue;  // a kernel may still write them: leave the mbufs (the pool goes at exit)
    for (Slot& s : pipe->slots)
      if (s.full.load(std::memory_order_acquire)) rte_pktmbuf_free_bulk(s.frames.data(), s.count);
  }
}

void Forwarder::fill(ForwardFigures& f) const {
  f.per_pipeline.clear();
  for (const auto& pipe : pipes_)
    f.per_pipeline.push_back({pipe->received.load(), pipe->sent.load(), pipe->bursts.load(),
                              pipe->gpu ? pipe->gpu->bursts_done() : 0});
  f.gpu_stopped_cleanly = gpu_clean_;
}

void Forwarder::work(Pipeline& pipe, uint32_t s, rte_mbuf** frames, uint32_t n) const {
  const ForwardOptions& f = raw_options(cell_).forward;
  switch (f.work) {
    case ForwardWork::none:
      return;
    case ForwardWork::cpu:
      for (uint32_t i = 0; i < n; ++i) {
        swap_macs(rte_pktmbuf_mtod(frames[i], uint8_t*));
        spin_ns(f.work_ns);
      }
      return;
    default: {  // GPU: the frames' addresses as the GPU maps the pool's memory
      const memory::Region& region = *env_.forward_memory();
      uint64_t* addresses = pipe.gpu->frames(s);
      for (uint32_t i = 0; i < n; ++i) {
        const auto* host = rte_pktmbuf_mtod(frames[i], const std::byte*);
        if (host < region.data() || host + kHeadersBytes > region.data() + region.mapped())
          throw RunFailure("forward: a received frame lies outside the GPU-mapped pool memory");
        addresses[i] = reinterpret_cast<uint64_t>(region.device_pointer() + (host - region.data()));
      }
      pipe.gpu->submit(s, n);
    }
  }
}

// Run to completion (testpmd's io and macswap): receives what the queue has, works on it and
// sends it, retrying what the port did not take. No slots: nothing is in flight between threads.
void Forwarder::run_inline(uint32_t p, std::stop_token stop) {
  Pipeline& pipe = *pipes_[p];
  const uint16_t in = env_.forward_rx_port(), out = env_.forward_tx_port(), queue = static_cast<uint16_t>(p);
  rte_mbuf** frames = pipe.slots[0].frames.data();
  const auto burst = static_cast<uint16_t>(cell_.batch);
  while (!stop.stop_requested()) {
    const uint16_t n = rte_eth_rx_burst(in, queue, frames, burst);
    if (!n) continue;
    work(pipe, 0, frames, n);
    pipe.received.fetch_add(n, std::memory_order_relaxed);
    pipe.bursts.fetch_add(1, std::memory_order_relaxed);
    uint16_t sent = 0;
    while (sent < n) {
      sent += rte_eth_tx_burst(out, queue, frames + sent, static_cast<uint16_t>(n - sent));
      if (sent < n && stop.stop_requested()) {
        rte_pktmbuf_free_bulk(frames + sent, n - sent);
        break;
      }
    }
    pipe.sent.fetch_add(sent, std::memory_order_relaxed);
  }
  pipe.rx_done.store(true, std::memory_order_release);
}

// Accumulates bursts into slots in order; a slot is reused once the TX core has sent it.
void Forwarder::run_rx(uint32_t p, std::stop_token stop) {
  Pipeline& pipe = *pipes_[p];
  const uint16_t port = env_.forward_rx_port();
  const uint32_t burst = cell_.batch;
  uint32_t s = 0;
  while (!stop.stop_requested()) {
    Slot& slot = pipe.slots[s];
    if (slot.full.load(std::memory_order_acquire)) {  // every slot in flight: the TX side is behind
      rte_pause();
      continue;
    }
    if (pipe.gpu) pipe.gpu->take(s);
    uint32_t n = 0;
    int64_t idle_since = 0;
    while (n < burst && !stop.stop_requested()) {
      const uint16_t got = rte_eth_rx_burst(port, static_cast<uint16_t>(p), slot.frames.data() + n,
                                            static_cast<uint16_t>(burst - n));
      if (got) {
        n += got;
        idle_since = 0;
      } else if (n) {
        const int64_t now = now_ns();
        if (!idle_since) idle_since = now;
        else if (now - idle_since > kFlushIdleNs) break;
      }
    }
    if (stop.stop_requested()) {
      if (n) rte_pktmbuf_free_bulk(slot.frames.data(), n);
      break;
    }
    slot.count = n;
    work(pipe, s, slot.frames.data(), n);
    slot.full.store(true, std::memory_order_release);
    pipe.received.fetch_add(n, std::memory_order_relaxed);
    pipe.bursts.fetch_add(1, std::memory_order_relaxed);
    s = s + 1 == kForwardSlots ? 0 : s + 1;
  }
  pipe.rx_done.store(true, std::memory_order_release);
}

// Sends the slots in order once their work completed; retries what the port did not take.
void Forwarder::run_tx(uint32_t p, std::stop_token stop) {
  Pipeline& pipe = *pipes_[p];
  const uint16_t port = env_.forward_tx_port();
  uint32_t s = 0;
  for (;;) {
    Slot& slot = pipe.slots[s];
    const bool ending = stop.stop_requested() && pipe.rx_done.load(std::memory_order_acquire);
    if (!slot.full.load(std::memory_order_acquire) || (pipe.gpu && !pipe.gpu->done(s))) {
      if (ending) return;  // stop() frees what is left
      rte_pause();
      continue;
    }
    uint32_t sent = 0;
    while (sent < slot.count) {
      sent += rte_eth_tx_burst(port, static_cast<uint16_t>(p), slot.frames.data() + sent,
                               static_cast<uint16_t>(slot.count - sent));
      if (sent < slot.count && stop.stop_requested()) {  // the run is over: the rest is not wanted
        rte_pktmbuf_free_bulk(slot.frames.data() + sent, slot.count - sent);
        break;
      }
    }
    pipe.sent.fetch_add(sent, std::memory_order_relaxed);
    if (pipe.gpu) pipe.gpu->release(s);
    slot.full.store(false, std::memory_order_release);
    s = s + 1 == kForwardSlots ? 0 : s + 1;
  }
}

}  // namespace spiral::raw
