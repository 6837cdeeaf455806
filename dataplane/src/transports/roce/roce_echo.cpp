// Server, latency: echoes every send or write back to the client.
#include <limits>
#include <thread>

#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_engine.hpp"
#include "transports/roce/roce_work.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {

void RoceEngine::echo(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const bool send = rdma_options(cell_).verb == Verb::send;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = rdma_options(cell_).verify_payload;
  const uint64_t every = qp.shape().signal_every;
  const auto qp_seed = static_cast<uint32_t>(q);
  ReceivePoster receives(qp, send, bytes);
  CompletionWaiter waiter(qp, kPingPongSpinNs);
  std::array<ibv_wc, kPollBatch> wc;
  ibv_sge sge{reinterpret_cast<uintptr_t>(qp.tx_slot(0)), bytes, qp.lkey()};
  ibv_send_wr wr = slot0_request(sge, send ? IBV_WR_SEND_WITH_IMM : IBV_WR_RDMA_WRITE_WITH_IMM, peer);
  QueueCounters c;
  uint64_t received = 0;
  std::optional<uint64_t> announced;

  while (!stop.stop_requested()) {
    const int k = ibv_poll_cq(qp.cq(), kPollBatch, wc.data());
    if (k < 0) throw RunFailure("roce: ibv_poll_cq failed on queue pair " + std::to_string(q));
    for (int i = 0; i < k; ++i) {
      ++c.completion.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      if (!is_receive(wc[i])) continue;  // a signalled reply went out
      const uint32_t tag = ntohl(wc[i].imm_data);
      const bool tagged = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0 && tag_phase_index(tag) < kPhaseCount;
      if (!tagged || (send && wc[i].byte_len != bytes)) ++c.malformed;
      if (!tag_follows(tag, received)) ++c.completion.out_of_order;
      if (verify) {
        ++(check_pattern(qp.rx_slot(0), bytes, pattern_seed(qp_seed, message_key(received))) ? c.completion.verified
                                                                                             : c.completion.corrupt);
        fill_pattern(qp.tx_slot(0), bytes, pattern_seed(qp_seed, reply_key(received)));
      }
      receives.add(wc[i].wr_id);
      receives.flush();
      wr.wr_id = received;
      wr.imm_data = htonl(tag);
      wr.send_flags = (received + 1) % every == 0 ? IBV_SEND_SIGNALED : 0;
      post_send_chain(qp, &wr);
      PhaseCount& bucket = c.by_phase[tagged ? tag_phase_index(tag) : index(Phase::drain)];
      ++bucket.packets;
      bucket.bytes += bytes;
      ++received;
      if ((received & 15) == 0) publish(q, c);
    }
    if (k > 0) {
      waiter.progress();
      continue;
    }
    if (phase() == Phase::drain && every_announced_arrived(link, announced, received)) {
      c.finished = true;
      break;
    }
    waiter.idle();
  }
  publish(q, c);
}

}  // namespace spiral::roce
