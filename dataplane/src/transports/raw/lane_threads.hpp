#pragma once
// The threads of a raw engine: poll-mode and worker threads, each pinned to its core and
// registered with DPDK (rte_thread_register) so mempool caches work for it as for an EAL lcore.
// The first exception any of them throws is kept as the engine's failure.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace spiral::raw {

class LaneThreads {
 public:
  ~LaneThreads() { stop(); }
  void spawn(int core, const std::string& name, std::function<void(std::stop_token)> body);
  void stop();  // asks every thread to stop and joins them; idempotent
  std::optional<std::string> failure() const;
  bool all_returned() const { return running_.load(std::memory_order_acquire) == 0; }

 private:
  void record(const std::string& what);
  std::atomic<int> running_{0};
  std::vector<std::jthread> threads_;
  mutable std::mutex lock_;
  std::optional<std::string> failure_;
};

}  // namespace spiral::raw
