#pragma once
// CPU reference of the two assembly steps the GPU kernels do (src/gpu/cuda/kernels.cu); the
// GPU tests compare against it and the CPU tests pin down its rules.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/receive_path.hpp"

namespace spiral::gpu {

// Sequence reorder: `packets` holds datagrams at `offsets` (arrival order). Slot s of the
// window receives the payload (after header_bytes) of the first-arriving datagram with
// sequence number base + s; slots nobody filled are zero; other sequence numbers are ignored.
// slot_bytes = datagram_bytes - header_bytes.
std::vector<std::byte> reorder_reference(std::span<const std::byte> packets, std::span<const uint32_t> offsets,
                                         const DatagramLayout& layout, uint64_t base, uint32_t slots);

// In-order gather: the segments back to back.
struct Segment {
  const std::byte* data;
  size_t bytes;
};
std::vector<std::byte> gather_reference(std::span<const Segment> segments);

// The 64-bit little-endian sequence number at `at` (no alignment promise).
uint64_t read_seq(const std::byte* at);

}  // namespace spiral::gpu
