#pragma once
// What every socket-style engine shares: one pinned thread per queue, the phase, published
// counters and the first worker error. A transport supplies open() and run_queue().
#include <atomic>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include "engine/engine.hpp"

namespace spiral {

class EngineBase : public Engine {
 public:
  // queue_cores[i]: core of queue i's thread, -1 unpinned.
  explicit EngineBase(std::vector<int> queue_cores);
  ~EngineBase() override;

  void start() override;
  void set_phase(Phase phase) override { phase_.store(phase, std::memory_order_release); }
  std::vector<QueueCounters> counters() const override;
  std::optional<std::string> failure() const override;
  void stop() override;

 protected:
  // Worker body for queue q; runs on its own pinned thread until done or stop requested.
  // Derived destructors must call stop() first, so no worker outlives the sockets it uses.
  virtual void run_queue(size_t q, std::stop_token stop) = 0;

  Phase phase() const { return phase_.load(std::memory_order_acquire); }
  size_t queue_count() const { return slots_.size(); }
  void publish(size_t q, const QueueCounters& c);

 private:
  struct alignas(64) Slot {  // one cache line apart: queues never share a lock's line
    mutable std::mutex lock;
    QueueCounters counters;
  };
  void record_failure(size_t q, const std::string& what);

  std::vector<int> cores_;
  std::unique_ptr<Slot[]> slot_storage_;
  std::vector<Slot*> slots_;
  std::atomic<Phase> phase_{Phase::warmup};
  mutable std::mutex failure_lock_;
  std::optional<std::string> failure_;
  std::vector<std::jthread> threads_;
};

}  // namespace spiral
