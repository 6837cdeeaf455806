#pragma once
// The windows a pipeline has on the GPU: max_in_flight + 1 slots, at most max_in_flight in
// flight (FIFO: the compute stream completes them in order), one filling. Retiring a slot
// (its completion seen) calls `retire(slot)` before the slot can be filled again: that is where
// a processed window is handed on (WindowSink) and where buffers a window reads in place are
// released (raw mbufs), so nothing is reused while the GPU may still read it. CUDA-free, so the
// order is tested on every machine with a fake completion source (tests/gpu/window_flight_test.cpp).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace spiral::gpu {

// Whether the work launched on a slot has completed (CUDA: an event recorded after it).
class CompletionSource {
 public:
  virtual ~CompletionSource() = default;
  virtual bool done(size_t slot) = 0;  // never waits; throws on an asynchronous error
  virtual void wait(size_t slot) = 0;  // waits until done
};

class WindowFlight {
 public:
  using Retire = std::function<void(size_t slot)>;
  WindowFlight(uint32_t max_in_flight, uint32_t sync_interval, CompletionSource& completion, Retire retire);

  size_t slots() const { return max_in_flight_ + 1; }
  size_t filling() const { return filling_; }
  size_t in_flight() const { return in_flight_.size(); }
  // Before launching the filling slot: every sync_interval launches (or at the cap) retire what
  // completed; while max_in_flight are in flight, wait for the oldest (a stall, counted, timed).
  void before_launch();
  // The filling slot's work was launched: it goes in flight and a free slot becomes the filling one.
  void launched();
  // Retire what completed, never waiting.
  void reap();
  // Wait for and retire everything in flight.
  void drain();

  uint64_t stalls() const { return stalls_; }
  uint64_t stall_ns() const { return stall_ns_; }

 private:
  void retire_oldest();

  uint32_t max_in_flight_, sync_interval_;
  CompletionSource& completion_;
  Retire retire_;
  std::deque<size_t> in_flight_;
  std::vector<size_t> free_;
  size_t filling_ = 0;
  uint64_t launches_ = 0, stalls_ = 0, stall_ns_ = 0;
};

}  // namespace spiral::gpu
