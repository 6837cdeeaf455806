#pragma once
// What the forward mode measures on top of the raw figures: the forwarder's own counts and
// ports, the MAC check of the frames that came back, offered vs forwarded rates, GPU busy.
#include <cstdint>
#include <string>
#include <vector>

namespace spiral {

struct ForwardPipelineCounts {
  uint64_t received = 0, sent = 0, bursts = 0, gpu_bursts = 0;
};

struct ForwardFigures {
  bool enabled = false;
  std::string work;  // none | cpu | gpu_kernel | gpu_persistent | gpu_graphs
  uint32_t pipelines = 0, burst = 0, work_ns = 0;
  std::vector<ForwardPipelineCounts> per_pipeline;
  // The forwarder's ports over the window and drain: its RX port's drops, its TX port's errors.
  uint64_t imissed = 0, rx_nombuf = 0, oerrors = 0;
  // Frames of ours that came back (warm-up included): with the MACs as the sender wrote them
  // (destination = rx_port's, source = tx_port's), swapped, or anything else.
  uint64_t mac_as_sent = 0, mac_swapped = 0, mac_other = 0;
  std::string sender_mac, receiver_mac;
  // Offered = the sender's frames over the window; forwarded = the receiver's measured frames.
  double offered_gbps = 0, forwarded_gbps = 0, offered_mpps = 0, forwarded_mpps = 0;
  int64_t gpu_sm_mpct = -1;  // NVML utilisation.gpu over the window; -1 none (CPU work, no NVML)
  std::string gpu_note;      // why there is no GPU figure
  // GPU work stopped within its timeout at the end (persistent kernel, graphs waiting on slots)
  bool gpu_stopped_cleanly = true;
};

// The verdict's part: frames that came back with the wrong MACs for the work mode. Empty: fine.
std::string forward_invalid_reason(const ForwardFigures& f);

}  // namespace spiral
