#pragma once
// The raw transport's receiver: RX core r polls device queues r, r + rx_queues, ... of the RX
// port with rte_eth_rx_burst, checks every frame (frame.hpp) and accounts its stream's sequence
// number. With a worker core the poll-mode thread only receives and hands bursts over a
// single-producer/single-consumer ring; the worker checks, accounts and frees.
// With a GPU workload every frame of ours also goes to the GPU receive path (gpu/receiver.hpp):
// one sequenced-datagram assembler per (RX queue, TX stream), the frame's UDP payload being the
// datagram. memory host_pinned: the assembler reads it in place from the mbuf, which is held
// until the window's kernels completed; memory host: it is copied into pinned staging (staged)
// and the mbuf freed at once (docs/gpu-workloads.md, "Raw Ethernet GPU receive path").
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <vector>

#include "config/cell.hpp"
#include "engine/engine.hpp"
#include "gpu/receiver.hpp"
#include "transports/raw/counter_slots.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/lane_threads.hpp"
#include "datagram/sequence_tracker.hpp"

struct rte_mbuf;

namespace spiral::raw {

class RawReceiver : public Engine, public gpu::GpuReporting {
 public:
  // `sink`: the GPU path's output side (gpu/window_sink.hpp) gets each processed window; null:
  // nobody (a bench). GPU tests pass a checker (tests/gpu/raw_gpu_correctness.cpp).
  RawReceiver(const Cell& cell, DpdkEnvironment& env, uint32_t run_id, gpu::WindowSink* sink = nullptr);
  ~RawReceiver() override;

  void open() override;  // sequence trackers and worker rings
  void start() override;
  void set_phase(Phase phase) override {
    phase_.store(phase, std::memory_order_release);
    gpu_.set_phase(phase);
  }
  gpu::GpuReport gpu_report() const override { return gpu_.report(); }
  std::vector<QueueCounters> counters() const override { return slots_.read(); }
  std::optional<std::string> failure() const override { return threads_.failure(); }
  void stop() override;
  // [rx queue][stream]: what each RX queue saw of each stream. Valid after stop().
  std::vector<std::vector<datagram::SequenceStats>> stream_stats() const;
  // Forward mode: how the frames of ours came back (MACs as sent, swapped, other). After stop().
  void mac_counts(ForwardFigures& f) const;

 private:
  struct Lane;  // one RX queue's accounting
  void run_alone(uint16_t r, std::stop_token stop);
  void run_poller(uint16_t r, std::stop_token stop);
  void run_worker(uint16_t r, std::stop_token stop);
  uint16_t receive(uint16_t r, uint16_t& next_queue, rte_mbuf** burst) const;
  // Checks and accounts a burst; returns how many mbufs it left at the front of `burst` to free
  // (the GPU path in place keeps the others until their window completed).
  uint16_t account(Lane& lane, rte_mbuf** burst, uint16_t n) const;
  void gpu_frame(Lane& lane, rte_mbuf* m, uint16_t stream, uint64_t seq, bool& kept) const;
  void finish_gpu(Lane& lane) const;

  const Cell& cell_;
  DpdkEnvironment& env_;
  uint32_t run_id_;
  gpu::WindowSink* sink_;
  std::atomic<Phase> phase_{Phase::warmup};
  CounterSlots slots_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<rte_ring*> rings_;
  std::unique_ptr<std::atomic<bool>[]> poller_done_;
  gpu::GpuReceiver gpu_;  // workload != none: assembler stream s of RX queue r at r * tx_queues + s
  bool in_place_ = false;
  // forward mode: the first 12 bytes (destination, source MAC) as the sender wrote them, swapped
  bool check_macs_ = false;
  std::array<uint8_t, 12> as_sent_{}, swapped_{};
  LaneThreads threads_;
};

}  // namespace spiral::raw
