#pragma once
// Per-queue counters. A queue is one pair's socket and thread (one DPDK queue or QP later).
// Workers fill a private copy in the hot loop and publish it once per batch; the driver reads
// snapshots while running and the final values after stop().
#include <array>
#include <cstdint>

#include "engine/phase.hpp"
#include "engine/completion_counters.hpp"
#include "engine/latency_histogram.hpp"

namespace spiral {

struct PhaseCount {
  uint64_t packets = 0;  // datagrams (udp) or whole messages (tcp)
  uint64_t bytes = 0;
};

struct QueueCounters {
  std::array<PhaseCount, kPhaseCount> by_phase{};

  // UDP sender: sequence numbers of the datagrams sent inside the window.
  bool sent_measured = false;
  uint64_t first_seq = 0, last_seq = 0;

  // UDP receiver: accounting of the measured datagrams that arrived (see SequenceTracker).
  bool seen_measured = false;
  uint64_t min_seq = 0, max_seq = 0;
  uint64_t duplicated = 0, reordered = 0, stale = 0;
  uint64_t malformed = 0;     // wrong length or truncated
  uint64_t foreign = 0;       // not ours: other run id, pair or magic
  uint64_t kernel_drops = 0;  // drops the kernel counted: the receiving socket's /proc/net/udp drops, or
                              // the sending namespace's TCPLostRetransmit + RetransSegs + InErrs (nstat's) on queue 0

  // TCP sender, over the measured window (TCP_INFO).
  uint64_t retrans = 0, segs_out = 0;

  // Receiver loops that time their receive calls (tcp): calls made and ns spent inside them over
  // the whole run, blocked or copying; with the GPU path it is what the receive thread did
  // besides the submits (gpu.submit_ns) and the waits for a free window (gpu.stall_ns).
  uint64_t recv_calls = 0, recv_ns = 0;

  uint64_t send_errors = 0;   // transient: ENOBUFS, ECONNREFUSED from an absent receiver
  bool finished = false;      // receiver: peer closed (tcp) or every message announced arrived (roce); sender: worker done

  CompletionCounters completion;  // completion-based kinds (roce)

  // Latency mode (ping-pong), the side that times the round trips: the replies that came back,
  // by the phase of their request (by_phase counts the requests), and the percentiles.
  std::array<PhaseCount, kPhaseCount> replies{};
  LatencySummary latency;

  const PhaseCount& measured() const { return by_phase[index(Phase::measure)]; }
  uint64_t all_bytes() const {
    uint64_t sum = 0;
    for (const auto& p : by_phase) sum += p.bytes;
    return sum;
  }
};

}  // namespace spiral
