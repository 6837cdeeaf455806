#pragma once
// The raw transport's sender: TX queue q sends stream q. Its poll-mode thread allocates a burst
// from the queue's pool (frames built once, see frame.hpp), stamps sequence numbers and calls
// rte_eth_tx_burst. With a worker core the worker allocates and stamps, and hands bursts to the
// poll-mode thread over a single-producer/single-consumer ring.
#include <rte_ring.h>

#include <atomic>
#include <optional>
#include <vector>

#include "config/cell.hpp"
#include "engine/engine.hpp"
#include "transports/raw/counter_slots.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/lane_threads.hpp"

namespace spiral::raw {

class RawSender : public Engine {
 public:
  RawSender(const Cell& cell, DpdkEnvironment& env, uint32_t run_id);
  ~RawSender() override;

  void open() override;  // writes every TX pool's frames; makes the worker rings
  void start() override;
  void set_phase(Phase phase) override { phase_.store(phase, std::memory_order_release); }
  std::vector<QueueCounters> counters() const override { return slots_.read(); }
  std::optional<std::string> failure() const override { return threads_.failure(); }
  void stop() override { threads_.stop(); }
  // After set_phase(drain): every thread returned by itself, the last queued frames sent.
  bool finished() const { return threads_.all_returned(); }

 private:
  struct Stamper;  // allocation, pacing and numbering of one queue's bursts
  template <typename Handoff>
  void produce(uint16_t q, std::stop_token stop, Handoff handoff);
  void run_alone(uint16_t q, std::stop_token stop);
  void run_worker(uint16_t q, std::stop_token stop);
  void run_poller(uint16_t q, std::stop_token stop);
  Phase phase() const { return phase_.load(std::memory_order_acquire); }

  const Cell& cell_;
  DpdkEnvironment& env_;
  uint32_t run_id_;
  std::atomic<Phase> phase_{Phase::warmup};
  CounterSlots slots_;
  std::vector<rte_ring*> rings_;              // worker -> poller, when workers are given
  std::unique_ptr<std::atomic<bool>[]> worker_done_;
  LaneThreads threads_;
};

}  // namespace spiral::raw
