#include "transports/roce/queue_pair.hpp"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "sys/errors.hpp"
#include "sys/clock.hpp"

namespace spiral::roce {

namespace {

constexpr uint8_t kMaxRdAtomic = 16;  // reads in flight per QP (perftest's default on mlx5)

uint32_t random_psn() {
  std::random_device entropy;
  return entropy() & 0xffffff;
}

void modify(ibv_qp* qp, ibv_qp_attr& a, int mask, const char* state, uint32_t index) {
  if (int err = ibv_modify_qp(qp, &a, mask))
    throw RunFailure(errno_message("roce: queue pair " + std::to_string(index) + " to " + state + " (ibv_modify_qp)", err));
}

}  // namespace

RcQueuePair::RcQueuePair(const OpenDevice& device, ibv_pd* pd, const RdmaOptions& options, uint64_t message_bytes,
                         const QueueShape& shape, int access, uint32_t index)
    : device_(device), shape_(shape), stride_(slot_stride(message_bytes)), index_(index), access_(access),
      psn_(random_psn()) {
  const std::string what = "queue pair " + std::to_string(index);
  const uint32_t send_wr = std::max(shape.tx_window, 2 * shape.signal_every) + 1;  // unsignalled ones linger
  const uint32_t recv_wr = std::max<uint32_t>(shape.rx_window, 1);
  const auto max_wr = static_cast<uint32_t>(device.attr.max_qp_wr);
  if (send_wr > max_wr || recv_wr > max_wr)
    throw BadInput("roce: " + std::to_string(std::max(send_wr, recv_wr)) + " work requests per queue exceed max_qp_wr " +
                   std::to_string(max_wr) + " of " + device.name + ": lower tx_depth or rx_depth");
  const uint32_t cqe = send_wr + recv_wr;
  if (cqe > static_cast<uint32_t>(device.attr.max_cqe))
    throw BadInput("roce: a completion queue of " + std::to_string(cqe) + " entries exceeds max_cqe " +
                   std::to_string(device.attr.max_cqe) + " of " + device.name + ": lower tx_depth or rx_depth");

  const size_t slots = size_t{shape.tx_slots} + shape.rx_slots;
  buffer_ = RegisteredBuffer(pd, std::max<size_t>(slots, 1) * stride_, options.memory,
                             IBV_ACCESS_LOCAL_WRITE | access, what);

  channel_.reset(ibv_create_comp_channel(device.context.get()));
  if (!channel_) throw RunFailure(errno_message("roce: ibv_create_comp_channel", errno));
  const int flags = fcntl(channel_->fd, F_GETFL);
  if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw RunFailure(errno_message("roce: completion channel O_NONBLOCK", errno));
  cq_.reset(ibv_create_cq(device.context.get(), static_cast<int>(cqe), nullptr, channel_.get(), 0));
  if (!cq_) throw RunFailure(errno_message("roce: ibv_create_cq of " + std::to_string(cqe) + " entries", errno));

  ibv_qp_init_attr init{};
  init.send_cq = cq_.get();
  init.recv_cq = cq_.get();
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 0;  // selective signalling
  init.cap.max_send_wr = send_wr;
  init.cap.max_recv_wr = recv_wr;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_.reset(ibv_create_qp(pd, &init));
  if (!qp_) throw RunFailure(errno_message("roce: ibv_create_qp (" + what + ")", errno));

  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = device.port;
  a.qp_access_flags = static_cast<unsigned>(access);
  modify(qp_.get(), a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT", index);
}

RcQueuePair::~RcQueuePair() {
  if (cq_ && unacked_events_) ibv_ack_cq_events(cq_.get(), unacked_events_);
  qp_.reset();
  cq_.reset();
  channel_.reset();
}

PeerInfo RcQueuePair::describe(const RdmaOptions& options, uint64_t message_bytes) const {
  PeerInfo p;
  p.queue = index_;
  p.verb = to_string(options.verb);
  p.mode = to_string(options.mode);
  p.payload_bytes = static_cast<uint32_t>(message_bytes);
  p.verify_payload = options.verify_payload;
  p.qp_num = qp_->qp_num;
  p.psn = psn_;
  p.gid = device_.gid;
  p.mtu_bytes = mtu_bytes(device_.active_mtu);
  p.addr = buffer_.address() + uint64_t{shape_.tx_slots} * stride_;
  p.rkey = buffer_.rkey();
  p.slots = shape_.rx_slots;
  p.slot_stride = stride_;
  p.rx_window = shape_.rx_window;
  return p;
}

void RcQueuePair::connect(const PeerInfo& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = std::min(device_.active_mtu, mtu_from_bytes(peer.mtu_bytes));
  a.dest_qp_num = peer.qp_num;
  a.rq_psn = peer.psn;
  a.max_dest_rd_atomic = static_cast<uint8_t>(std::min<int>(device_.attr.max_qp_rd_atom, kMaxRdAtomic));
  a.min_rnr_timer = 12;  // 0.64 ms before an RNR-NAKed send is retried (perftest's value)
  a.ah_attr.is_global = 1;
  std::memcpy(a.ah_attr.grh.dgid.raw, peer.gid.data(), 16);
  a.ah_attr.grh.sgid_index = static_cast<uint8_t>(device_.gid_index);
  a.ah_attr.grh.hop_limit = 64;
  a.ah_attr.port_num = device_.port;
  modify(qp_.get(), a,
         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
             IBV_QP_MIN_RNR_TIMER,
         "RTR", index_);
  ibv_qp_attr r{};
  r.qp_state = IBV_QPS_RTS;
  r.timeout = 14;    // 4.096 us * 2^14 = 67 ms before a retransmit
  r.retry_cnt = 7;
  r.rnr_retry = 7;   // retry RNR NAKs forever: a receiver behind on its receives slows the sender down
  r.sq_psn = psn_;
  r.max_rd_atomic = static_cast<uint8_t>(std::min<int>(device_.attr.max_qp_init_rd_atom, kMaxRdAtomic));
  modify(qp_.get(), r,
         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
         "RTS", index_);
}

void CompletionWaiter::idle() {
  // The clock only every 64th empty round: where the clock source is not the TSC (emulated
  // guests), reading it is a system call that would slow down noticing the completion.
  if ((++idle_rounds_ & 63) != 0) return;
  const int64_t now = now_ns();
  if (idle_since_ns_ == 0) idle_since_ns_ = now;
  if (now - idle_since_ns_ < spin_ns_) return;
  if (!armed_) {
    if (ibv_req_notify_cq(qp_.cq(), 0)) throw RunFailure("roce: ibv_req_notify_cq failed");
    armed_ = true;
    return;  // the caller polls once more before sleeping: a completion may have raced the arming
  }
  pollfd p{qp_.channel()->fd, POLLIN, 0};
  if (::poll(&p, 1, 1) > 0) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(qp_.channel(), &cq, &context) == 0) {
      qp_.count_event();
      armed_ = false;
    }
  }
}

}  // namespace spiral::roce
