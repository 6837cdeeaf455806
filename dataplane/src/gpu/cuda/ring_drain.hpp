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
  uint64_t dst;    // device address the chunk's bytes go to
  uint32_t bytes;  // <= chunk_bytes
  uint32_t seq;
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

}  // namespace spiral::gpu
