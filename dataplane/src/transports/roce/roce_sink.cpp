// Server, bandwidth: counts each send or write from its receive completion; for reads it only waits,
// its CPU takes no part.
#include <limits>
#include <thread>

#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_engine.hpp"
#include "transports/roce/roce_work.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {

void RoceEngine::sink(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const bool send = rdma_options(cell_).verb == Verb::send;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = rdma_options(cell_).verify_payload;
  const auto qp_seed = static_cast<uint32_t>(q);
  ReceivePoster receives(qp, send, bytes);
  CompletionWaiter waiter(qp, kStreamSpinNs);
  std::array<ibv_wc, kPollBatch> wc;
  QueueCounters c;
  uint64_t received = 0;  // every message so far: the next one's sequence number
  std::optional<uint64_t> announced;
  gpu::StreamAssembler* gpu = gpu_.stream(q);

  while (!stop.stop_requested()) {
    const int k = ibv_poll_cq(qp.cq(), kPollBatch, wc.data());
    if (k < 0) throw RunFailure("roce: ibv_poll_cq failed on queue pair " + std::to_string(q));
    for (int i = 0; i < k; ++i) {
      ++c.completion.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      const uint32_t tag = ntohl(wc[i].imm_data);
      const bool tagged = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0 && tag_phase_index(tag) < kPhaseCount;
      if (!tagged || (send && wc[i].byte_len != bytes)) ++c.malformed;
      if (!tag_follows(tag, received)) ++c.completion.out_of_order;
      PhaseCount& bucket = c.by_phase[tagged ? tag_phase_index(tag) : index(Phase::drain)];
      ++bucket.packets;
      bucket.bytes += send ? wc[i].byte_len : bytes;
      if (verify || gpu) {
        // A write lands at its sequence number's slot; a send in its receive's slot.
        const char* slot = send ? qp.rx_slot(wc[i].wr_id) : qp.rx_slot(received);
        if (verify)
          ++(check_pattern(slot, bytes, pattern_seed(qp_seed, message_key(received))) ? c.completion.verified
                                                                                      : c.completion.corrupt);
        if (gpu) copy_into(*gpu, slot, bytes);
      }
      receives.add(wc[i].wr_id);
      ++received;
    }
    if (k < kPollBatch) receives.flush();
    if (k > 0) {
      waiter.progress();
      publish(q, c);
      continue;
    }
    if (phase() == Phase::drain && every_announced_arrived(link, announced, received)) {
      c.finished = true;
      break;
    }
    waiter.idle();
  }
  if (gpu) gpu->finish();
  publish(q, c);
}


void RoceEngine::serve_reads(size_t q, std::stop_token stop) {
  // One-sided: the NIC answers the client's reads from the slots; this thread only waits for
  // the client's fin, so that the memory stays registered until every read completed.
  QueueCounters c;
  while (!stop.stop_requested()) {
    if (take_fin(links_[q], Millis(5))) {
      c.finished = true;
      break;
    }
  }
  publish(q, c);
}

}  // namespace spiral::roce
