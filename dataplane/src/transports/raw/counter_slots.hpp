#pragma once
// Per-queue counters published by one thread and read by the driver: a lock per slot, taken once
// every few bursts (never per packet), each slot on its own cache lines.
#include <memory>
#include <mutex>
#include <vector>

#include "engine/counters.hpp"

namespace spiral::raw {

class CounterSlots {
 public:
  explicit CounterSlots(size_t n) : slots_(new Slot[n]), n_(n) {}
  void publish(size_t q, const QueueCounters& c) {
    std::lock_guard guard(slots_[q].lock);
    slots_[q].counters = c;
  }
  std::vector<QueueCounters> read() const {
    std::vector<QueueCounters> out;
    for (size_t q = 0; q < n_; ++q) {
      std::lock_guard guard(slots_[q].lock);
      out.push_back(slots_[q].counters);
    }
    return out;
  }

 private:
  struct alignas(64) Slot {
    mutable std::mutex lock;
    QueueCounters counters;
  };
  std::unique_ptr<Slot[]> slots_;
  size_t n_;
};

}  // namespace spiral::raw
