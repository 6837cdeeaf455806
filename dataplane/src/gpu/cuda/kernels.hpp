#pragma once
// The assembly kernels: sequence reorder (out-of-order transports) and in-order gather, plus
// the FP32 -> FP16 conversion of the tensor-core GEMM. All asynchronous on `stream`.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace spiral::gpu {

constexpr uint32_t kNoOwner = 0xffffffffu;

struct ReorderArgs {
  const std::byte* packets;  // device-readable: staged copy, or mapped host memory read in place
  const uint32_t* offsets;   // datagram i starts at packets + offsets[i] (arrival order)
  uint32_t count;            // datagrams
  uint64_t base;             // sequence number of slot 0
  uint32_t slots;
  uint32_t header_bytes;     // slot payload = datagram bytes after the header
  uint32_t slot_bytes;
  uint32_t seq_offset;       // 64-bit little-endian sequence number here in each datagram
  uint32_t* owner;           // slots entries, all kNoOwner on entry; left all kNoOwner again
  std::byte* window;         // slots * slot_bytes
};
// Slot s gets the payload of the first-arriving datagram with sequence number base + s, or
// zeros. Two launches: claim (atomicMin of the arrival index per slot), then fill per slot.
void launch_reorder(const ReorderArgs& args, cudaStream_t stream);

struct GatherSegment {
  const std::byte* src;  // device-readable
  uint64_t dst_offset;
  uint64_t bytes;
};
// Copies each segment to window + dst_offset. `segments` is device-readable.
void launch_gather(const GatherSegment* segments, uint32_t count, uint64_t largest_bytes, std::byte* window,
                   cudaStream_t stream);

void launch_float_to_half(const float* in, __half* out, size_t n, cudaStream_t stream);

}  // namespace spiral::gpu
