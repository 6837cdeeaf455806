#pragma once
// The forward mode's forwarder (l2fwd-nv): `forward_pipelines` pipelines, each an RX core and a
// TX core with a ring of burst slots between them, all on one mbuf pool. The RX core polls its
// queue of forward_rx_port until a burst of `batch` frames has accumulated (or the queue went
// idle with a partial burst), starts the work on it and hands the slot on; the TX core waits for
// the slot's work to complete and sends the burst out of forward_tx_port's queue. Work: none
// (I/O forwarding), cpu (the RX core swaps the MACs), or the GPU (gpu/forward_work.hpp).
// Without GPU work, a pipeline whose RX and TX core are the same core runs to completion on one
// thread instead (as testpmd forwards): receive what is there, work, send.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/cell.hpp"
#include "gpu/forward_work.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/forward_figures.hpp"
#include "transports/raw/lane_threads.hpp"

struct rte_mbuf;

namespace spiral::raw {

class Forwarder {
 public:
  Forwarder(const Cell& cell, DpdkEnvironment& env);
  ~Forwarder();
  // The slots and, for GPU work, one BurstWork per pipeline (the persistent kernel starts here).
  // Throws BadInput without a usable GPU.
  void open();
  // The RX and TX thread of every pipeline, pinned to cores.forward_rx / forward_tx (one thread
  // when both are one core and the work is on the CPU).
  void start();
  // Stops the threads, then the GPU work (quit flag, wait), then frees what is still in slots.
  // Idempotent; also run by the destructor (a failed run).
  void stop();
  std::optional<std::string> failure() const { return threads_.failure(); }
  // Counts per pipeline and whether the GPU work stopped cleanly. Valid after stop().
  void fill(ForwardFigures& f) const;

 private:
  struct Slot;
  struct Pipeline;
  void run_inline(uint32_t p, std::stop_token stop);  // CPU work, RX and TX on one core
  void run_rx(uint32_t p, std::stop_token stop);
  void run_tx(uint32_t p, std::stop_token stop);
  // Starts the work on a full slot (RX core).
  void work(Pipeline& pipe, uint32_t s, rte_mbuf** frames, uint32_t n) const;

  const Cell& cell_;
  DpdkEnvironment& env_;
  std::vector<std::unique_ptr<Pipeline>> pipes_;
  bool stopped_ = false, gpu_clean_ = true;
  LaneThreads threads_;  // last: its threads go before the pipelines they use
};

}  // namespace spiral::raw
