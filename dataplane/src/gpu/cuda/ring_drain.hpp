#pragma once
// The GPU half of the stream ring (gpu/cuda/stream_ring.hpp): a persistent kernel that copies
// chunks the receive thread posts in a small ring of mapped host memory into device windows,
// with no CUDA call per chunk. C++17 (included by .cu files).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace spiral::gpu {

constexpr uint32_t kRingMaxSlots = 16;

// Written by the receive thread, one per ring slot: `seq` (chunk number + 1) last, after the
// bytes and the descriptor, so a kernel that sees it sees them.
struct RingChunk {
  uint64_t dst;     // device address the chunk's bytes go to
  uint64_t signal;  // 0, or a device address: the chunk ends a window, store 1 there once it and
                    // every chunk before it were copied (the window's work waits for it on the GPU)
  uint32_t bytes;   // <= chunk_bytes; 0 for a chunk that only signals
  uint32_t seq;
  uint64_t pad;     // 32 bytes: two descriptors a cache line
};

// Mapped host memory shared by the receive thread and the kernel.
struct RingControl {
  RingChunk chunk[kRingMaxSlots];
  alignas(64) uint32_t done;  // chunks copied, in order (written by the kernel)
  alignas(64) uint32_t stop;  // set by the host after its last chunk: the kernel exits once idle
};

struct RingDrainArgs {
  RingControl* control;     // device address of the mapped control block
  const std::byte* ring;    // device address of the mapped ring: slots * chunk_bytes
  uint32_t slots;           // chunk c sits in slot c % slots
  uint32_t chunk_bytes;     // a multiple of 16
  uint32_t* arrivals;       // device memory, `slots` counters, zero at launch
};

// Launches the drain on `stream` (which it occupies until control->stop): `blocks` blocks of
// `threads` threads share every chunk, so a chunk's copy has blocks x threads loads in flight.
void launch_ring_drain(const RingDrainArgs& args, uint32_t blocks, uint32_t threads, cudaStream_t stream);

// One launch per window (gpu/cuda/pipeline.hpp): the first and last kernels of a window's graph.
// window_wait waits on the GPU until *ready (device memory, stored by the drain through a chunk's
// `signal`) is nonzero, then clears it for the slot's next window. window_done stores 1 into
// *done_flag (mapped host memory, the device address) once everything before it on `stream` ran:
// the receive thread reads it instead of querying an event.
void launch_window_wait(uint32_t* ready, cudaStream_t stream);
void launch_window_done(uint32_t* done_flag, cudaStream_t stream);

}  // namespace spiral::gpu
