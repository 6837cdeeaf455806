#pragma once
// Receive buffers a window reads in place (raw Ethernet's mbufs in host_pinned memory), held
// until the GPU work that reads them has completed. The receive thread holds each frame it adds
// to the window being filled; seal() closes that window's holds under a token that goes to
// Pipeline::submit(), and the pipeline's completion (WindowFlight's retire, config.on_complete)
// calls release(token), which hands the frames back (rte_pktmbuf_free_bulk) in one call.
// Nothing is released before the kernel reading it completed; everything is released by
// release_all() at the end. One receive thread owns it. CUDA-free: tested with a fake completion
// source (tests/gpu/held_frames_test.cpp).
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

namespace spiral::gpu {

class HeldFrames {
 public:
  using Release = std::function<void(std::span<void* const> frames)>;
  explicit HeldFrames(Release release) : release_(std::move(release)) {}
  HeldFrames(const HeldFrames&) = delete;
  HeldFrames& operator=(const HeldFrames&) = delete;
  ~HeldFrames() { release_all(); }

  // A frame the window being filled reads.
  void hold(void* frame) { filling_.push_back(frame); }
  // The window being filled goes to the GPU: its holds wait under the returned token.
  uint64_t seal() {
    sealed_.push_back({next_token_, std::move(filling_)});
    filling_.clear();
    return next_token_++;
  }
  // The work of the window sealed under `token` completed. Windows complete in order, so it is
  // the oldest sealed one; an older token still sealed (not expected) is released first.
  void release(uint64_t token) {
    while (!sealed_.empty() && sealed_.front().token <= token) {
      Window w = std::move(sealed_.front());
      sealed_.pop_front();
      if (!w.frames.empty()) release_(w.frames);
      released_ += w.frames.size();
    }
  }
  // End of run (after every window completed), or a failure: everything goes back.
  void release_all() {
    while (!sealed_.empty()) release(sealed_.front().token);
    if (!filling_.empty()) release_(filling_);
    released_ += filling_.size();
    filling_.clear();
  }

  size_t filling() const { return filling_.size(); }
  size_t sealed_windows() const { return sealed_.size(); }
  uint64_t released() const { return released_; }

 private:
  struct Window {
    uint64_t token;
    std::vector<void*> frames;
  };
  Release release_;
  std::vector<void*> filling_;
  std::deque<Window> sealed_;
  uint64_t next_token_ = 1;
  uint64_t released_ = 0;
};

}  // namespace spiral::gpu
