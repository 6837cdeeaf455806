#include "transports/roce/rdma_accounting.hpp"

#include "metrics/latency_json.hpp"

namespace spiral::roce {

namespace {

using Verb = RdmaOptions::Verb;

void add_queue(RdmaResult& x, const CompletionCounters& q) {
  x.completions += q.completions;
  for (size_t s = 0; s < q.wc_errors.size(); ++s) x.wc_errors[s] += q.wc_errors[s];
  x.verified += q.verified;
  x.corrupt += q.corrupt;
  x.out_of_order += q.out_of_order;
}

uint64_t all_packets(const QueueCounters& q) {
  uint64_t n = 0;
  for (const auto& p : q.by_phase) n += p.packets;
  return n;
}

// Read: the data moves from the server to the client, whose completions are the only witness.
void receive_figures_from_requester(const SideReport& sender, RunResult& r) {
  r.rx_packets = r.rx_bytes = r.rx_bytes_all = 0;
  r.rx_finished = !sender.queues.empty();
  for (size_t i = 0; i < sender.queues.size() && i < r.pairs.size(); ++i) {
    const QueueCounters& q = sender.queues[i];
    r.pairs[i].rx_packets = q.measured().packets;
    r.pairs[i].rx_bytes = q.measured().bytes;
    r.rx_packets += q.measured().packets;
    r.rx_bytes += q.measured().bytes;
    r.rx_bytes_all += q.all_bytes();
    r.rx_finished = r.rx_finished && q.finished;
  }
  const int64_t ms = r.seconds_milli;
  r.rx_mbps = ms > 0 ? static_cast<int64_t>(r.rx_bytes * 8 / 1000 / static_cast<uint64_t>(ms)) : 0;
  r.rx_gbps = ms > 0 ? double(r.rx_bytes) * 8.0 / 1e6 / double(ms) : 0;
  r.pps = ms > 0 ? r.rx_packets * 1000 / static_cast<uint64_t>(ms) : 0;
}

}  // namespace

void account(const Cell& cell, const SideReport* sender, const SideReport* receiver, RunResult& r) {
  RdmaResult& x = rdma_result(r);
  const bool read = rdma_options(cell).verb == Verb::read;
  const bool latency = rdma_options(cell).mode == RdmaOptions::Mode::latency;
  if (sender) {
    for (const auto& q : sender->queues) {
      add_queue(x, q.completion);
      x.tx_retries += q.completion.retries;
      x.messages_all += all_packets(q);
      if (q.latency.samples) x.latency = q.latency;  // one queue pair in latency mode
    }
    if (read) receive_figures_from_requester(*sender, r);
  }
  if (receiver) {
    for (const auto& q : receiver->queues) {
      add_queue(x, q.completion);
      x.rx_retries += q.completion.retries;
    }
  }
  // Every message is checked once where it lands; a ping-pong also checks each reply.
  x.checks_expected = read ? x.messages_all : latency ? 2 * x.messages_all : x.messages_all;
  r.drops = 0;
  for (uint64_t n : x.wc_errors) r.drops += n;
  r.drops_kind = "rdma-cqe-error";
  r.loss_ppm = r.tx_packets ? static_cast<int64_t>(r.drops * 1'000'000 / r.tx_packets) : 0;

  // Messages are tagged with the sender's phase, so both sides count the same window exactly.
  if (sender && receiver && !read) {
    for (size_t i = 0; i < sender->queues.size() && i < receiver->queues.size(); ++i) {
      const QueueCounters& tx = sender->queues[i];
      const QueueCounters& rx = receiver->queues[i];
      if (rx.finished && tx.measured().packets != rx.measured().packets)
        r.problems.push_back("queue pair " + std::to_string(i) + ": sender posted " +
                             std::to_string(tx.measured().packets) + " messages in the window, receiver completed " +
                             std::to_string(rx.measured().packets));
    }
  }
}

std::optional<std::string> verdict(const Cell& cell, const RunResult& r) {
  const RdmaResult& x = rdma_result(r);
  if (x.corrupt)
    return std::to_string(x.corrupt) + " of " + std::to_string(x.corrupt + x.verified) +
           " messages failed the payload check";
  if (x.out_of_order) return std::to_string(x.out_of_order) + " messages arrived out of order";
  if (!r.rx_finished) return "receiver did not complete every message within grace_ms";
  if (r.tx_bytes_all != r.rx_bytes_all)
    return "counters inconsistent: sender posted " + std::to_string(r.tx_bytes_all) + " bytes, receiver completed " +
           std::to_string(r.rx_bytes_all);
  if (rdma_options(cell).verify_payload && x.verified != x.checks_expected)
    return "payload check covered " + std::to_string(x.verified) + " of " + std::to_string(x.checks_expected) +
           " messages";
  if (rdma_options(cell).mode == RdmaOptions::Mode::latency && x.latency.samples == 0)
    return "no round trip was timed in the measured window";
  return std::nullopt;
}

nlohmann::ordered_json record(const Cell& cell, const RunResult& r) {
  const RdmaResult& x = rdma_result(r);
  nlohmann::ordered_json errors = nlohmann::ordered_json::object();
  for (size_t s = 0; s < x.wc_errors.size(); ++s)
    if (x.wc_errors[s]) errors[wc_status_name(s)] = x.wc_errors[s];
  nlohmann::ordered_json j = {{"verb", to_string(rdma_options(cell).verb)},
                              {"mode", to_string(rdma_options(cell).mode)},
                              {"memory", to_string(rdma_options(cell).memory)},
                              {"messages_all", x.messages_all},
                              {"completions", x.completions},
                              {"wc_errors", errors},
                              {"verify_payload", rdma_options(cell).verify_payload},
                              {"verified", x.verified},
                              {"corrupt", x.corrupt},
                              {"out_of_order", x.out_of_order},
                              {"tx_retries", x.tx_retries},
                              {"rx_retries", x.rx_retries}};
  if (rdma_options(cell).mode == RdmaOptions::Mode::latency)
    j["latency"] = latency_to_json(x.latency);
  return j;
}

}  // namespace spiral::roce
