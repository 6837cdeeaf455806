#include "engine/engine_base.hpp"

#include "sys/affinity.hpp"

namespace spiral {

EngineBase::EngineBase(std::vector<int> queue_cores)
    : cores_(std::move(queue_cores)), slot_storage_(new Slot[cores_.size()]) {
  for (size_t q = 0; q < cores_.size(); ++q) slots_.push_back(&slot_storage_[q]);
}

EngineBase::~EngineBase() { stop(); }

void EngineBase::start() {
  for (size_t q = 0; q < cores_.size(); ++q) {
    threads_.emplace_back([this, q](std::stop_token stop) {
      try {
        pin_current_thread(cores_[q]);
        run_queue(q, stop);
      } catch (const std::exception& e) {
        record_failure(q, e.what());
      }
    });
  }
}

void EngineBase::stop() {
  for (auto& t : threads_) t.request_stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void EngineBase::publish(size_t q, const QueueCounters& c) {
  std::lock_guard guard(slots_[q]->lock);
  slots_[q]->counters = c;
}

std::vector<QueueCounters> EngineBase::counters() const {
  std::vector<QueueCounters> out;
  out.reserve(slots_.size());
  for (const Slot* s : slots_) {
    std::lock_guard guard(s->lock);
    out.push_back(s->counters);
  }
  return out;
}

void EngineBase::record_failure(size_t q, const std::string& what) {
  std::lock_guard guard(failure_lock_);
  if (!failure_) failure_ = "queue " + std::to_string(q) + ": " + what;
}

std::optional<std::string> EngineBase::failure() const {
  std::lock_guard guard(failure_lock_);
  return failure_;
}

}  // namespace spiral
