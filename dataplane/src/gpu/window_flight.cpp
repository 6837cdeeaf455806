#include "gpu/window_flight.hpp"

#include <algorithm>
#include <chrono>

namespace spiral::gpu {

WindowFlight::WindowFlight(uint32_t max_in_flight, uint32_t sync_interval, CompletionSource& completion,
                           Retire retire)
    : max_in_flight_(std::max<uint32_t>(1, max_in_flight)),
      sync_interval_(std::max<uint32_t>(1, sync_interval)),
      completion_(completion),
      retire_(std::move(retire)) {
  for (size_t i = 1; i < slots(); ++i) free_.push_back(i);
}

void WindowFlight::before_launch() {
  // The cap: at most max_in_flight windows on the GPU. Only a window that would exceed it waits
  // (a stall), so the GPU keeps max_in_flight windows while the receiver fills the next one.
  if (++launches_ % sync_interval_ == 0 || in_flight_.size() >= max_in_flight_) reap();
  while (in_flight_.size() >= max_in_flight_) {
    const auto t0 = std::chrono::steady_clock::now();
    completion_.wait(in_flight_.front());
    retire_oldest();
    ++stalls_;
    stall_ns_ += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
}

void WindowFlight::launched() {
  in_flight_.push_back(filling_);
  // max_in_flight + 1 slots and at most max_in_flight in flight: one is free to fill
  filling_ = free_.back();
  free_.pop_back();
}

void WindowFlight::reap() {
  while (!in_flight_.empty() && completion_.done(in_flight_.front())) retire_oldest();
}

void WindowFlight::drain() {
  while (!in_flight_.empty()) {
    completion_.wait(in_flight_.front());
    retire_oldest();
  }
}

void WindowFlight::retire_oldest() {
  const size_t slot = in_flight_.front();
  in_flight_.pop_front();
  if (retire_) retire_(slot);  // before the slot can be filled again
  free_.push_back(slot);
}

}  // namespace spiral::gpu
