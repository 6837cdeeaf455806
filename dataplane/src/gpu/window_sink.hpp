#pragma once
// The GPU pipeline's output side: a processed window can be handed on (to a forwarder that
// transmits it, to a check, to a later stage) instead of only being dropped. CUDA-free.
#include <cstddef>
#include <cstdint>

namespace spiral::gpu {

// One window whose assembly and workload have completed on the GPU. The pointers are device
// addresses (or mapped host memory) and stay valid only during the call: the pipeline reuses
// the window's buffers once window_processed() returns, so a sink that keeps the data copies it
// (or transmits it) before it returns.
struct ProcessedWindow {
  uint32_t assembler = 0;            // which assembler (receive queue) of the receive path
  uint64_t index = 0;                // windows of that assembler, from 0, in order
  const std::byte* window = nullptr;  // the assembled window (device)
  uint64_t window_bytes = 0;
  uint64_t base = 0;                 // datagrams: the window's first sequence number; streams: its first byte
  uint64_t received_bytes = 0;       // bytes received into it (zero-filled holes not counted)
  const void* output = nullptr;      // the workload's output (device); null for workload none
  uint64_t output_bytes = 0;
};

// Called on the receive thread of the window's assembler, windows of one assembler in order.
// A sink shared by several assemblers is called from several threads.
class WindowSink {
 public:
  virtual ~WindowSink() = default;
  virtual void window_processed(const ProcessedWindow& w) = 0;
};

}  // namespace spiral::gpu
