#pragma once
// The raw transport's forward mode (l2fwd-nv): a forwarder between the sender's port and the
// receiver's port. Frames leave tx_port, enter forward_rx_port, are processed by the work mode
// in bursts of `batch` and leave forward_tx_port for rx_port. Part of RawOptions.
#include <cstdint>
#include <string>

namespace spiral {

// Who touches each accumulated burst before it goes out again (l2fwd-nv's -w 0..4).
enum class ForwardWork { none, cpu, gpu_kernel, gpu_persistent, gpu_graphs };

struct ForwardOptions {
  std::string rx_port, tx_port;  // the forwarder's two ports; empty: no forwarder (plain raw)
  ForwardWork work = ForwardWork::none;
  uint32_t pipelines = 1;        // each one RX queue + one TX queue, on their own cores
  uint32_t work_ns = 0;          // forced work time per packet (l2fwd-nv's -t); 0: none
  bool buffer_split = false;     // header in a host mbuf, payload in a GPU-accessible one
  bool enabled() const { return !rx_port.empty(); }
};

constexpr uint32_t kMaxForwardPipelines = 16;
constexpr uint32_t kMaxForwardBurst = 1024;     // batch: frames per accumulated burst
constexpr uint32_t kMaxForwardWorkNs = 1000000;  // 1 ms per packet
// Bursts in flight per pipeline between its RX and TX core; a multiple of kGraphBursts.
constexpr uint32_t kForwardSlots = 64;
constexpr uint32_t kGraphBursts = 8;  // one CUDA graph launches the work of this many bursts

inline const char* to_string(ForwardWork w) {
  switch (w) {
    case ForwardWork::none: return "none";
    case ForwardWork::cpu: return "cpu";
    case ForwardWork::gpu_kernel: return "gpu_kernel";
    case ForwardWork::gpu_persistent: return "gpu_persistent";
    case ForwardWork::gpu_graphs: return "gpu_graphs";
  }
  return "?";
}
inline bool on_gpu(ForwardWork w) { return w != ForwardWork::none && w != ForwardWork::cpu; }
// Every mode but none swaps the source and destination MAC of each frame.
inline bool swaps_macs(ForwardWork w) { return w != ForwardWork::none; }

}  // namespace spiral
