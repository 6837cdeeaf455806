#pragma once
// Which window a sequenced datagram belongs to: the bookkeeping of DatagramAssembler, kept free
// of CUDA so it is tested on every machine. Window k holds sequence numbers
// [k*slots, (k+1)*slots); windows only move forward.
#include <cstdint>

namespace spiral::gpu {

class DatagramWindower {
 public:
  enum class Place { current, beyond, late };

  explicit DatagramWindower(uint32_t slots) : slots_(slots ? slots : 1) {}

  uint32_t slots() const { return slots_; }
  uint64_t base() const { return base_; }

  // Where `seq` goes: into the current window, beyond it (a later window), or nowhere (its
  // window already went to the GPU).
  Place place(uint64_t seq) {
    if (seq < base_) return Place::late;
    if (seq - base_ >= slots_) {
      beyond_ = true;
      return Place::beyond;
    }
    const uint32_t slot = static_cast<uint32_t>(seq - base_);
    if (!any_ || slot > highest_) highest_ = slot;
    any_ = true;
    return Place::current;
  }

  // Datagrams the current window still expects if they arrive in order (>= 1).
  uint32_t room() const {
    if (!any_) return slots_;
    const uint32_t left = slots_ - 1 - highest_;
    return left ? left : 1;
  }

  // The window is done: its last slot arrived, or a datagram of a later window did.
  bool complete() const { return beyond_ || (any_ && highest_ == slots_ - 1); }

  // Moves to the window that holds `seq` (>= base + slots), or to the next window without one.
  void advance_to(uint64_t seq) {
    base_ += (seq - base_) / slots_ * slots_;
    reset();
  }
  void advance() {
    base_ += slots_;
    reset();
  }

 private:
  void reset() {
    any_ = beyond_ = false;
    highest_ = 0;
  }
  uint32_t slots_;
  uint64_t base_ = 0;
  uint32_t highest_ = 0;
  bool any_ = false, beyond_ = false;
};

}  // namespace spiral::gpu
