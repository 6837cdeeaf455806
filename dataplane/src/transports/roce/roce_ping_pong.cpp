// Client, latency: one message at a time, each round trip timed (perftest's *_lat requester).
#include <limits>
#include <thread>

#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_engine.hpp"
#include "transports/roce/roce_work.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {

void RoceEngine::ping(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const Verb verb = rdma_options(cell_).verb;
  const bool read = verb == Verb::read;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = rdma_options(cell_).verify_payload;
  const uint64_t every = link.window.signal_every;
  const auto qp_seed = static_cast<uint32_t>(q);
  ReceivePoster receives(qp, verb == Verb::send, bytes);
  CompletionWaiter waiter(qp, kPingPongSpinNs);
  std::array<ibv_wc, kPollBatch> wc;
  ibv_sge sge{reinterpret_cast<uintptr_t>(qp.tx_slot(0)), bytes, qp.lkey()};
  ibv_send_wr wr = slot0_request(
      sge, read ? IBV_WR_RDMA_READ : verb == Verb::write ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_SEND_WITH_IMM, peer);
  QueueCounters c;
  uint64_t seq = 0;

  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    if (verify) {
      if (read) poison(qp.tx_slot(0), bytes);
      else fill_pattern(qp.tx_slot(0), bytes, pattern_seed(qp_seed, message_key(seq)));
    }
    wr.wr_id = seq;
    wr.imm_data = htonl(make_tag(p, seq));
    wr.send_flags = read || (seq + 1) % every == 0 ? IBV_SEND_SIGNALED : 0;
    const int64_t started = now_ns();
    post_send_chain(qp, &wr);
    PhaseCount& bucket = c.by_phase[index(p)];  // counted as sent, as the server counts it
    ++bucket.packets;
    bucket.bytes += bytes;
    // The reply: a read's own completion, or the receive of the echo. Awaited even when a stop
    // is requested (it comes right after the window), so both ends count the same messages.
    bool replied = false;
    for (uint32_t empty = 0; !replied;) {
      const int k = ibv_poll_cq(qp.cq(), kPollBatch, wc.data());
      if (k < 0) throw RunFailure("roce: ibv_poll_cq failed on queue pair " + std::to_string(q));
      for (int i = 0; i < k; ++i) {
        ++c.completion.completions;
        if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
        if (read) {
          replied = true;
        } else if (is_receive(wc[i])) {
          if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || !tag_follows(ntohl(wc[i].imm_data), seq)) ++c.completion.out_of_order;
          if (verify)
            ++(check_pattern(qp.rx_slot(0), bytes, pattern_seed(qp_seed, reply_key(seq))) ? c.completion.verified
                                                                                           : c.completion.corrupt);
          receives.add(wc[i].wr_id);
          receives.flush();
          replied = true;
        }
      }
      if (replied) break;
      if (k > 0) continue;
      waiter.idle();
      if ((++empty & 4095) == 0 && now_ns() - started > kReplyTimeoutNs)
        throw RunFailure("roce: no reply to message " + std::to_string(seq) + " on queue pair " +
                         std::to_string(q) + " within 5 s");
    }
    const int64_t elapsed = now_ns() - started;
    waiter.progress();
    if (read && verify)
      ++(check_pattern(qp.tx_slot(0), bytes, pattern_seed(qp_seed, read_slot_key(0))) ? c.completion.verified
                                                                                      : c.completion.corrupt);
    if (p == Phase::measure) latency_->add(elapsed);
    ++seq;
    if ((seq & 15) == 0) publish(q, c);
  }
  c.latency = latency_->summary(read ? 1 : 2);
  c.finished = true;
  publish(q, c);
  link.peer_channel->send(fin_message(seq));
}

}  // namespace spiral::roce
