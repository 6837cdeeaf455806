// Client, bandwidth: keeps the window of sends, writes or reads in flight (perftest's *_bw requester).
#include <algorithm>
#include <limits>
#include <optional>
#include <thread>

#include "engine/token_bucket.hpp"
#include "sys/clock.hpp"
#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_engine.hpp"
#include "transports/roce/roce_work.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {

void RoceEngine::stream(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const Verb verb = rdma_options(cell_).verb;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = rdma_options(cell_).verify_payload;
  const uint64_t window = link.window.in_flight, every = link.window.signal_every;
  const uint64_t chain = verb == Verb::read ? kPostBatch : kSendChain;
  std::array<ibv_send_wr, kPostBatch> wrs{};
  std::array<ibv_sge, kPostBatch> sges{};
  std::array<ibv_wc, kPollBatch> wc;
  CompletionWaiter waiter(qp, kStreamSpinNs);
  QueueCounters c;
  uint64_t posted = 0, completed = 0, pad_to = 0;
  bool draining = false;
  Clock::time_point give_up{};
  // Software rate limit, as perftest's --rate_limit in software: each queue pair posts only what
  // its share of target_mbps allows (20 ms of tokens, at least one message); the window still
  // bounds what is in flight. The drain's padding is not paced.
  std::optional<TokenBucket> pace;
  if (cell_.target_mbps) {
    const double bytes_per_second = static_cast<double>(cell_.target_mbps) * 1e6 / 8.0 / cell_.pairs;
    pace.emplace(bytes_per_second, std::max<double>(bytes, bytes_per_second * 0.020), now_ns());
  }

  for (;;) {
    const Phase p = phase();
    if (!draining) {
      if (p == Phase::drain) {
        // Unsignalled operations never complete visibly: pad to the next signalled one.
        draining = true;
        pad_to = (posted + every - 1) / every * every;
        give_up = Clock::now() + Millis(cell_.grace_ms + kDrainSlackMs);
      } else if (stop.stop_requested()) {
        break;  // the run failed elsewhere
      }
    }
    const Phase tag_phase = draining ? Phase::drain : p;
    const uint64_t limit = draining ? pad_to : std::numeric_limits<uint64_t>::max();
    auto n = static_cast<uint32_t>(std::min<uint64_t>({window - (posted - completed), limit - posted, chain}));
    if (pace && !draining && n) n = pace->take(now_ns(), bytes, n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t seq = posted + i;
      char* slot = qp.tx_slot(seq);
      if (verify) {
        if (verb == Verb::read) poison(slot, bytes);
        else fill_pattern(slot, bytes, pattern_seed(static_cast<uint32_t>(q), message_key(seq)));
      }
      sges[i] = ibv_sge{reinterpret_cast<uintptr_t>(slot), bytes, qp.lkey()};
      ibv_send_wr& wr = wrs[i];
      wr = ibv_send_wr{};
      wr.wr_id = seq;
      wr.sg_list = &sges[i];
      wr.num_sge = 1;
      wr.next = i + 1 < n ? &wrs[i + 1] : nullptr;
      wr.send_flags = (seq + 1) % every == 0 ? IBV_SEND_SIGNALED : 0;
      const uint64_t remote = peer.addr + (seq % peer.slots) * peer.slot_stride;
      switch (verb) {
        case Verb::send:
          wr.opcode = IBV_WR_SEND_WITH_IMM;
          wr.imm_data = htonl(make_tag(tag_phase, seq));
          break;
        case Verb::write:
          wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
          wr.imm_data = htonl(make_tag(tag_phase, seq));
          wr.wr.rdma.remote_addr = remote;
          wr.wr.rdma.rkey = peer.rkey;
          break;
        case Verb::read:
          wr.opcode = IBV_WR_RDMA_READ;
          wr.wr.rdma.remote_addr = remote;
          wr.wr.rdma.rkey = peer.rkey;
          break;
      }
    }
    if (n) {
      post_send_chain(qp, wrs.data());
      PhaseCount& bucket = c.by_phase[index(tag_phase)];
      bucket.packets += n;
      bucket.bytes += uint64_t{n} * bytes;
      posted += n;
    }

    const int k = ibv_poll_cq(qp.cq(), kPollBatch, wc.data());
    if (k < 0) throw RunFailure("roce: ibv_poll_cq failed on queue pair " + std::to_string(q));
    for (int i = 0; i < k; ++i) {
      ++c.completion.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      const uint64_t done = wc[i].wr_id + 1;  // in order: everything before it completed too
      if (verify && verb == Verb::read) {
        for (uint64_t s = completed; s < done; ++s) {
          const uint64_t seed = pattern_seed(static_cast<uint32_t>(q), read_slot_key(s % peer.slots));
          ++(check_pattern(qp.tx_slot(s), bytes, seed) ? c.completion.verified : c.completion.corrupt);
        }
      }
      completed = std::max(completed, done);
    }
    if (draining && completed >= posted) break;
    if (n || k) {
      waiter.progress();
      publish(q, c);
    } else {
      if (draining && Clock::now() > give_up)
        throw RunFailure("roce: " + std::to_string(posted - completed) + " operations on queue pair " +
                         std::to_string(q) + " still in flight " + std::to_string(cell_.grace_ms + kDrainSlackMs) +
                         " ms after the window");
      waiter.idle();
    }
  }
  c.finished = true;
  publish(q, c);
  if (draining) link.peer_channel->send(fin_message(posted));
}

}  // namespace spiral::roce
