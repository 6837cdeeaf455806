#pragma once
// One RC queue pair with its own completion queue, completion channel and registered buffer
// (tx slots, then rx slots), and the state changes that connect it to its peer.
#include <cstdint>
#include <string>

#include "transports/roce/rdma_options.hpp"
#include "transports/roce/buffer.hpp"
#include "transports/roce/device.hpp"
#include "transports/roce/peer_info.hpp"
#include "transports/roce/sizing.hpp"
#include "transports/roce/verbs.hpp"

namespace spiral::roce {

class RcQueuePair {
 public:
  // `access`: what the peer may do to this side's rx slots (IBV_ACCESS_REMOTE_WRITE / _READ).
  RcQueuePair(const OpenDevice& device, ibv_pd* pd, const RdmaOptions& options, uint64_t message_bytes,
              const QueueShape& shape, int access, uint32_t index);
  ~RcQueuePair();
  RcQueuePair(const RcQueuePair&) = delete;
  RcQueuePair& operator=(const RcQueuePair&) = delete;

  // This end as the peer needs it.
  PeerInfo describe(const RdmaOptions& options, uint64_t message_bytes) const;
  // INIT -> RTR -> RTS towards `peer`.
  void connect(const PeerInfo& peer);

  ibv_qp* qp() const { return qp_.get(); }
  ibv_cq* cq() const { return cq_.get(); }
  ibv_comp_channel* channel() const { return channel_.get(); }
  const QueueShape& shape() const { return shape_; }
  uint64_t stride() const { return stride_; }
  char* tx_slot(uint64_t i) const { return buffer_.data() + (i % shape_.tx_slots) * stride_; }
  char* rx_slot(uint64_t i) const { return buffer_.data() + (shape_.tx_slots + i % shape_.rx_slots) * stride_; }
  uint32_t lkey() const { return buffer_.lkey(); }
  uint32_t index() const { return index_; }
  // Completion events taken from the channel; acknowledged in bulk before the CQ goes.
  void count_event() { ++unacked_events_; }

 private:
  const OpenDevice& device_;
  QueueShape shape_;
  uint64_t stride_;
  uint32_t index_;
  int access_;
  uint32_t psn_;
  unsigned unacked_events_ = 0;
  // Released in reverse: the QP before its CQ before its channel; the buffer last.
  RegisteredBuffer buffer_;
  CompletionChannel channel_;
  CompletionQueue cq_;
  QueuePair qp_;
};

// Waits for completions without burning a core when there are none for a while: spins first
// (on a NIC completions and replies come within microseconds, so a healthy run rarely gets
// further), then arms the CQ and sleeps on its channel for at most 1 ms, so the worker still
// notices phase changes and stop requests, and a stalled peer does not cost a core.
// bandwidth: completions come in bursts. Spinning 20 ms instead (as perftest does) raised 64 KiB
// sends and reads in the Soft-RoCE VM from 0.66x/0.60x perftest to 0.78x/0.77x, but in a full
// run 3 of 30 send/write runs of 1-8 MiB were Invalid, the server short of messages after 30 s
// (likely: two spinning processes starve Soft-RoCE's kernel work on two emulated CPUs): docs/benchmarks/rdma.md.
constexpr int64_t kStreamSpinNs = 50'000;
constexpr int64_t kPingPongSpinNs = 20'000'000;  // latency: spin as perftest does; sleep only on a stalled peer

class CompletionWaiter {
 public:
  CompletionWaiter(RcQueuePair& qp, int64_t spin_ns) : qp_(qp), spin_ns_(spin_ns) {}
  // After a round with neither completions nor anything to post.
  void idle();
  // After a round that did something.
  void progress() {
    idle_since_ns_ = 0;
    idle_rounds_ = 0;
  }

 private:
  RcQueuePair& qp_;
  int64_t spin_ns_;
  bool armed_ = false;
  int64_t idle_since_ns_ = 0;
  uint32_t idle_rounds_ = 0;
};

}  // namespace spiral::roce
