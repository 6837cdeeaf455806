#pragma once
// What the roce engine's modes share (roce_engine.cpp sets up, one file per mode runs the queue
// pair: roce_stream.cpp, roce_ping_pong.cpp, roce_sink.cpp, roce_echo.cpp): batch sizes, timeouts,
// posting receives and sends, the latency side's work request and the copy into a GPU window.
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "sys/errors.hpp"
#include "gpu/receive_path.hpp"
#include "transports/roce/peer_info.hpp"
#include "transports/roce/queue_pair.hpp"
#include "transports/roce/rdma_options.hpp"

namespace spiral::roce {

using Verb = RdmaOptions::Verb;
using Mode = RdmaOptions::Mode;

using Verb = RdmaOptions::Verb;
using Mode = RdmaOptions::Mode;

inline constexpr int kPollBatch = 32;        // completions per ibv_poll_cq
inline constexpr uint32_t kPostBatch = 32;   // work requests per ibv_post_send / ibv_post_recv chain
// Sends and writes go out in shorter chains: a 32-long chain of 64 KiB sends bursts 512 packets
// onto the wire at once, and on Soft-RoCE the drops and 67 ms retransmit timeouts that follow
// cost more than the doorbells saved (64 KiB sends 0.70x perftest with 32, 1.03x with 4). Reads
// keep 32: with 4 they fell to 0.5x. docs/benchmarks/rdma.md has the runs.
inline constexpr uint32_t kSendChain = 4;
inline constexpr int64_t kDrainSlackMs = 5000;       // client: beyond grace_ms, for the last completions
inline constexpr int64_t kReplyTimeoutNs = 5'000'000'000;  // latency: a reply later than this is a failure
inline constexpr int64_t kFlushCountNs = 200'000'000;      // after a failed completion: collect the flushed ones

inline bool is_receive(const ibv_wc& wc) { return (wc.opcode & IBV_WC_RECV) != 0; }

// Receives go back in chains: a receive for `slot` (send) or without memory (write with
// immediate, whose data lands by RDMA address).
class ReceivePoster {
 public:
  ReceivePoster(RcQueuePair& qp, bool with_memory, uint32_t message_bytes)
      : qp_(qp), with_memory_(with_memory), bytes_(message_bytes) {}
  void add(uint64_t slot) {
    ibv_recv_wr& wr = wrs_[count_];
    wr = ibv_recv_wr{};
    wr.wr_id = slot;
    if (with_memory_) {
      sges_[count_] = ibv_sge{reinterpret_cast<uintptr_t>(qp_.rx_slot(slot)), bytes_, qp_.lkey()};
      wr.sg_list = &sges_[count_];
      wr.num_sge = 1;
    }
    if (++count_ == kPostBatch) flush();
  }
  void flush() {
    if (count_ == 0) return;
    for (uint32_t i = 0; i + 1 < count_; ++i) wrs_[i].next = &wrs_[i + 1];
    wrs_[count_ - 1].next = nullptr;
    ibv_recv_wr* bad = nullptr;
    if (int err = ibv_post_recv(qp_.qp(), wrs_.data(), &bad))
      throw RunFailure(errno_message("roce: ibv_post_recv on queue pair " + std::to_string(qp_.index()), err));
    count_ = 0;
  }

 private:
  RcQueuePair& qp_;
  bool with_memory_;
  uint32_t bytes_;
  uint32_t count_ = 0;
  std::array<ibv_recv_wr, kPostBatch> wrs_{};
  std::array<ibv_sge, kPostBatch> sges_{};
};

inline void post_send_chain(RcQueuePair& qp, ibv_send_wr* first) {
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(qp.qp(), first, &bad))
    throw RunFailure(errno_message("roce: ibv_post_send on queue pair " + std::to_string(qp.index()), err));
}

// The work request a latency side reuses for every message: its slot 0 to the peer's slot 0
// (one message in flight, so one slot each way).
inline ibv_send_wr slot0_request(ibv_sge& sge, ibv_wr_opcode opcode, const PeerInfo& peer) {
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode;
  wr.wr.rdma.remote_addr = peer.addr;
  wr.wr.rdma.rkey = peer.rkey;
  return wr;
}

// One message into the in-order GPU window: a CPU copy from the registered slot into pinned
// staging, split where a window ends.
inline void copy_into(gpu::StreamAssembler& gpu, const char* data, size_t bytes) {
  while (bytes > 0) {
    std::span<std::byte> space = gpu.space();
    const size_t n = std::min(space.size(), bytes);
    std::memcpy(space.data(), data, n);
    gpu.commit(n);
    data += n;
    bytes -= n;
  }
}

}  // namespace spiral::roce
