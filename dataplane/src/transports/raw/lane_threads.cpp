#include "transports/raw/lane_threads.hpp"

#include <rte_errno.h>
#include <rte_lcore.h>

#include "sys/errors.hpp"
#include "sys/affinity.hpp"

namespace spiral::raw {

void LaneThreads::spawn(int core, const std::string& name, std::function<void(std::stop_token)> body) {
  running_.fetch_add(1, std::memory_order_acq_rel);
  threads_.emplace_back([this, core, name, body = std::move(body)](std::stop_token stop) {
    bool registered = false;
    try {
      pin_current_thread(core);  // first, so DPDK records the pinned core set
      if (rte_thread_register() != 0)
        throw RunFailure(std::string("rte_thread_register: ") + rte_strerror(rte_errno));
      registered = true;
      body(stop);
    } catch (const std::exception& e) {
      record(name + ": " + e.what());
    }
    if (registered) rte_thread_unregister();
    running_.fetch_sub(1, std::memory_order_acq_rel);
  });
}

void LaneThreads::stop() {
  for (auto& t : threads_) t.request_stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void LaneThreads::record(const std::string& what) {
  std::lock_guard guard(lock_);
  if (!failure_) failure_ = what;
}

std::optional<std::string> LaneThreads::failure() const {
  std::lock_guard guard(lock_);
  return failure_;
}

}  // namespace spiral::raw
