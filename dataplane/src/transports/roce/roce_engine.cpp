#include "transports/roce/roce_engine.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iostream>
#include <limits>
#include <span>
#include <thread>

#include "app/errors.hpp"
#include "control/messages.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"
#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_factory.hpp"
#include "transports/roce/tag.hpp"

namespace spiral::roce {

namespace {

using Verb = RdmaOptions::Verb;
using Mode = RdmaOptions::Mode;

constexpr int kPollBatch = 32;        // completions per ibv_poll_cq
constexpr uint32_t kPostBatch = 32;   // work requests per ibv_post_send / ibv_post_recv chain
// Sends and writes go out in shorter chains: a 32-long chain of 64 KiB sends bursts 512 packets
// onto the wire at once, and on Soft-RoCE the drops and 67 ms retransmit timeouts that follow
// cost more than the doorbells saved (64 KiB sends 0.70x perftest with 32, 1.03x with 4). Reads
// keep 32: with 4 they fell to 0.5x. docs/benchmarks/rdma.md has the runs.
constexpr uint32_t kSendChain = 4;
constexpr int64_t kDrainSlackMs = 5000;       // client: beyond grace_ms, for the last completions
constexpr int64_t kReplyTimeoutNs = 5'000'000'000;  // latency: a reply later than this is a failure
constexpr int64_t kFlushCountNs = 200'000'000;      // after a failed completion: collect the flushed ones

int remote_access(const RdmaOptions& o, bool client) {
  if (o.verb == Verb::read) return client ? 0 : IBV_ACCESS_REMOTE_READ;
  if (o.verb == Verb::write) return o.mode == Mode::latency || !client ? IBV_ACCESS_REMOTE_WRITE : 0;
  return 0;
}

bool is_receive(const ibv_wc& wc) { return (wc.opcode & IBV_WC_RECV) != 0; }

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

void post_send_chain(RcQueuePair& qp, ibv_send_wr* first) {
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(qp.qp(), first, &bad))
    throw RunFailure(errno_message("roce: ibv_post_send on queue pair " + std::to_string(qp.index()), err));
}

// The work request a latency side reuses for every message: its slot 0 to the peer's slot 0
// (one message in flight, so one slot each way).
ibv_send_wr slot0_request(ibv_sge& sge, ibv_wr_opcode opcode, const PeerInfo& peer) {
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
void copy_into(gpu::StreamAssembler& gpu, const char* data, size_t bytes) {
  while (bytes > 0) {
    std::span<std::byte> space = gpu.space();
    const size_t n = std::min(space.size(), bytes);
    std::memcpy(space.data(), data, n);
    gpu.commit(n);
    data += n;
    bytes -= n;
  }
}

std::string kib(uint64_t bytes) {
  return bytes >= (1u << 20) && bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                                         : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction) {
  return std::make_unique<RoceEngine>(cell, direction);
}

RoceEngine::RoceEngine(const Cell& cell, Direction direction)
    : EngineBase(queue_cores(direction == Direction::send ? cell.cores.tx : cell.cores.rx, cell.pairs)),
      cell_(cell),
      client_(direction == Direction::send),
      shape_(client_ ? requester_shape(cell.rdma, cell.payload_bytes)
                     : responder_shape(cell.rdma, cell.payload_bytes, cell.workload != Workload::none)) {}

void RoceEngine::open() {
  device_.emplace(open_device(cell_.rdma, cell_.bind_address));
  if (cell_.payload_bytes > device_->max_msg_bytes)
    throw BadInput("payload_bytes " + std::to_string(cell_.payload_bytes) + " exceeds the largest message port " +
                   std::to_string(device_->port) + " of " + device_->name + " takes (max_msg_sz " +
                   std::to_string(device_->max_msg_bytes) + ")");
  pd_.reset(ibv_alloc_pd(device_->context.get()));
  if (!pd_) throw RunFailure(errno_message("roce: ibv_alloc_pd", errno));
  retries_ = RetryCounters("/sys/class/infiniband", device_->name, device_->port,
                           client_ ? RetryCounters::Side::requester : RetryCounters::Side::responder);
  if (cell_.rdma.mode == Mode::latency) latency_ = std::make_unique<LatencyHistogram>();
  const int access = remote_access(cell_.rdma, client_);
  for (uint32_t q = 0; q < cell_.pairs; ++q) {
    Link link;
    link.qp = std::make_unique<RcQueuePair>(*device_, pd_.get(), cell_.rdma, cell_.payload_bytes, shape_, access, q);
    links_.push_back(std::move(link));
  }
  if (!client_ && cell_.workload != Workload::none) {
    gpu_ = gpu::open_receive_path(cell_);
    for (uint32_t q = 0; q < cell_.pairs; ++q) assemblers_.push_back(gpu_->stream_assembler());
  }
  if (client_) open_client();
  else open_server();
  describe_to_stderr();
}

void RoceEngine::post_initial_receives(RcQueuePair& qp) {
  if (qp.shape().rx_window == 0) return;
  ReceivePoster receives(qp, cell_.rdma.verb == Verb::send, cell_.payload_bytes);
  for (uint32_t i = 0; i < qp.shape().rx_window; ++i) receives.add(i % qp.shape().rx_slots);
  receives.flush();
}

void RoceEngine::open_client() {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  for (uint32_t q = 0; q < cell_.pairs; ++q) {
    Link& link = links_[q];
    post_initial_receives(*link.qp);
    const auto port = static_cast<uint16_t>(cell_.base_port + q);
    const sockaddr_in to = resolve_ipv4_until(cell_.server_address, port, deadline);
    link.peer_channel = std::make_unique<ControlChannel>(tcp_connect_until(to, deadline));
    link.peer_channel->send(to_message(link.qp->describe(cell_.rdma, cell_.payload_bytes)));
    std::optional<nlohmann::json> answer;
    try {
      answer = link.peer_channel->poll(std::max<Millis>(Millis(0), std::chrono::duration_cast<Millis>(deadline - Clock::now())));
    } catch (const RunFailure&) {
      throw RunFailure("roce: the server closed queue pair " + std::to_string(q) + "'s set-up connection (see its log)");
    }
    if (!answer) throw BadInput("roce: the server did not describe queue pair " + std::to_string(q) + " within connect_timeout_ms");
    const std::string type = (*answer)["type"].get<std::string>();
    if (type == "error") throw BadInput("roce: the server refused queue pair " + std::to_string(q) + ": " +
                                        answer->value("reason", std::string()));
    if (type != "qp") throw RunFailure("roce: expected the server's queue pair description, got \"" + type + "\"");
    link.peer = peer_from_message(*answer);
    link.qp->connect(link.peer);
    link.window = effective_window(cell_.rdma, shape_, link.peer.rx_window);
    if (cell_.rdma.verb != Verb::read && link.peer.slots == 0)
      throw RunFailure("roce: the server offers no slots on queue pair " + std::to_string(q));
    if (cell_.rdma.verb == Verb::read && link.peer.slots == 0)
      throw RunFailure("roce: the server offers no memory to read on queue pair " + std::to_string(q));
  }
}

void RoceEngine::open_server() {
  for (uint32_t q = 0; q < cell_.pairs; ++q) {
    Link& link = links_[q];
    RcQueuePair& qp = *link.qp;
    if (cell_.rdma.verb == Verb::read && cell_.rdma.verify_payload)
      for (uint32_t s = 0; s < qp.shape().rx_slots; ++s)
        fill_pattern(qp.rx_slot(s), cell_.payload_bytes, pattern_seed(q, read_slot_key(s)));
    post_initial_receives(qp);
    link.listener = tcp_listen(ipv4_address(cell_.bind_address, static_cast<uint16_t>(cell_.base_port + q)));
  }
}

void RoceEngine::describe_to_stderr() const {
  const OpenDevice& d = *device_;
  std::string line = std::string("spiral-dataplane: roce ") + (client_ ? "client" : "server") + ": " + d.name +
                     " port " + std::to_string(d.port) + " (" + d.netdev + ") GID[" + std::to_string(d.gid_index) +
                     "] " + gid_text(d.gid) + ", active MTU " + std::to_string(mtu_bytes(d.active_mtu)) + ", " +
                     std::to_string(cell_.pairs) + " RC queue pair(s), " + to_string(cell_.rdma.verb) + " " +
                     to_string(cell_.rdma.mode) + ", " + std::to_string(cell_.payload_bytes) + " B messages";
  if (client_ && !links_.empty())
    line += ", " + std::to_string(links_[0].window.in_flight) + " in flight (every " +
            std::to_string(links_[0].window.signal_every) + " signalled)";
  if (shape_.rx_window) line += ", " + std::to_string(shape_.rx_window) + " receives posted";
  line += ", " + std::to_string(shape_.tx_slots + shape_.rx_slots) + " x " + kib(slot_stride(cell_.payload_bytes)) +
          " registered (" + to_string(cell_.rdma.memory) + "), retries from " + retries_.names();
  std::cerr << line << "\n";
}

void RoceEngine::set_phase(Phase phase) {
  if (phase == Phase::measure) {
    retries_at_start_ = retries_.read();
  } else if (phase == Phase::drain && this->phase() == Phase::measure) {
    retries_in_window_ = retries_.read() - retries_at_start_;
  }
  EngineBase::set_phase(phase);
  if (gpu_) gpu_->set_phase(phase);
}

std::vector<QueueCounters> RoceEngine::counters() const {
  auto queues = EngineBase::counters();
  if (!queues.empty()) queues[0].rdma.retries = retries_in_window_.load();
  return queues;
}

void RoceEngine::run_queue(size_t q, std::stop_token stop) {
  const bool latency = cell_.rdma.mode == Mode::latency;
  const bool read = cell_.rdma.verb == Verb::read;
  if (client_) {
    if (latency) ping(q, stop);
    else stream(q, stop);
    return;
  }
  accept_client(q, stop);
  if (stop.stop_requested() && !links_[q].peer_channel) return;
  if (read) serve_reads(q, stop);
  else if (latency) echo(q, stop);
  else sink(q, stop);
}

void RoceEngine::accept_client(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  Fd connection = accept_until(link.listener.get(), Clock::now() + Millis(cell_.connect_timeout_ms),
                               [&] { return stop.stop_requested(); });
  if (!connection) {
    if (stop.stop_requested()) return;
    throw RunFailure("roce: no client on queue pair " + std::to_string(q) + "'s port " +
                     std::to_string(cell_.base_port + q) + " within connect_timeout_ms");
  }
  link.listener.reset();
  link.peer_channel = std::make_unique<ControlChannel>(std::move(connection));
  const PeerInfo client = peer_from_message(link.peer_channel->expect("qp", Millis(cell_.connect_timeout_ms)));
  const PeerInfo mine = link.qp->describe(cell_.rdma, cell_.payload_bytes);
  if (std::string mismatch = peer_mismatch(mine, client); !mismatch.empty()) {
    link.peer_channel->send(error_message(mismatch));
    throw RunFailure("roce: the client's queue pair does not match: " + mismatch);
  }
  link.peer = client;
  link.qp->connect(client);  // its receives are posted already: answering lets the client send
  link.peer_channel->send(to_message(mine));
}

std::optional<uint64_t> RoceEngine::take_fin(Link& link, Millis wait) {
  std::optional<nlohmann::json> message;
  try {
    message = link.peer_channel->poll(wait);
  } catch (const RunFailure&) {
    throw RunFailure("roce: the client closed queue pair " + std::to_string(link.qp->index()) +
                     "'s connection without its fin");
  }
  if (!message) return std::nullopt;
  if ((*message)["type"] != "fin" || !(*message)["messages"].is_number_unsigned())
    throw RunFailure("roce: expected the client's fin, got " + message->dump());
  return (*message)["messages"].get<uint64_t>();
}

bool RoceEngine::every_announced_arrived(Link& link, std::optional<uint64_t>& announced, uint64_t received) {
  if (!announced) announced = take_fin(link, Millis(0));
  return announced && received >= *announced;
}

void RoceEngine::fail_completion(size_t q, QueueCounters& c, const ibv_wc& first) {
  auto count = [&](const ibv_wc& wc) {
    ++c.rdma.wc_errors[std::min<size_t>(wc.status, kWcStatusSlots - 1)];
  };
  count(first);
  // The queue pair is in the error state now: what was in flight comes back flushed.
  std::array<ibv_wc, kPollBatch> wc;
  const int64_t until = now_ns() + kFlushCountNs;
  while (now_ns() < until) {
    const int n = ibv_poll_cq(links_[q].qp->cq(), kPollBatch, wc.data());
    if (n <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    for (int i = 0; i < n; ++i) {
      ++c.rdma.completions;
      if (wc[i].status != IBV_WC_SUCCESS) count(wc[i]);
    }
  }
  publish(q, c);
  throw RunFailure("roce: a work completion failed with " + wc_status_name(first.status) + " (" +
                   ibv_wc_status_str(first.status) + ", vendor error " + std::to_string(first.vendor_err) + ", " +
                   std::to_string(c.rdma.errors()) + " failed in all)");
}

void RoceEngine::stream(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const Verb verb = cell_.rdma.verb;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = cell_.rdma.verify_payload;
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
    const auto n = static_cast<uint32_t>(std::min<uint64_t>({window - (posted - completed), limit - posted, chain}));
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
      ++c.rdma.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      const uint64_t done = wc[i].wr_id + 1;  // in order: everything before it completed too
      if (verify && verb == Verb::read) {
        for (uint64_t s = completed; s < done; ++s) {
          const uint64_t seed = pattern_seed(static_cast<uint32_t>(q), read_slot_key(s % peer.slots));
          ++(check_pattern(qp.tx_slot(s), bytes, seed) ? c.rdma.verified : c.rdma.corrupt);
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

void RoceEngine::ping(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const Verb verb = cell_.rdma.verb;
  const bool read = verb == Verb::read;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = cell_.rdma.verify_payload;
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
        ++c.rdma.completions;
        if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
        if (read) {
          replied = true;
        } else if (is_receive(wc[i])) {
          if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || !tag_follows(ntohl(wc[i].imm_data), seq)) ++c.rdma.out_of_order;
          if (verify)
            ++(check_pattern(qp.rx_slot(0), bytes, pattern_seed(qp_seed, reply_key(seq))) ? c.rdma.verified
                                                                                           : c.rdma.corrupt);
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
      ++(check_pattern(qp.tx_slot(0), bytes, pattern_seed(qp_seed, read_slot_key(0))) ? c.rdma.verified
                                                                                      : c.rdma.corrupt);
    if (p == Phase::measure) latency_->add(elapsed);
    ++seq;
    if ((seq & 15) == 0) publish(q, c);
  }
  c.rdma.latency = latency_->summary(read ? 1 : 2);
  c.finished = true;
  publish(q, c);
  link.peer_channel->send(fin_message(seq));
}

void RoceEngine::sink(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const bool send = cell_.rdma.verb == Verb::send;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = cell_.rdma.verify_payload;
  const auto qp_seed = static_cast<uint32_t>(q);
  ReceivePoster receives(qp, send, bytes);
  CompletionWaiter waiter(qp, kStreamSpinNs);
  std::array<ibv_wc, kPollBatch> wc;
  QueueCounters c;
  uint64_t received = 0;  // every message so far: the next one's sequence number
  std::optional<uint64_t> announced;
  gpu::StreamAssembler* gpu = assemblers_.empty() ? nullptr : assemblers_[q].get();

  while (!stop.stop_requested()) {
    const int k = ibv_poll_cq(qp.cq(), kPollBatch, wc.data());
    if (k < 0) throw RunFailure("roce: ibv_poll_cq failed on queue pair " + std::to_string(q));
    for (int i = 0; i < k; ++i) {
      ++c.rdma.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      const uint32_t tag = ntohl(wc[i].imm_data);
      const bool tagged = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0 && tag_phase_index(tag) < kPhaseCount;
      if (!tagged || (send && wc[i].byte_len != bytes)) ++c.malformed;
      if (!tag_follows(tag, received)) ++c.rdma.out_of_order;
      PhaseCount& bucket = c.by_phase[tagged ? tag_phase_index(tag) : index(Phase::drain)];
      ++bucket.packets;
      bucket.bytes += send ? wc[i].byte_len : bytes;
      if (verify || gpu) {
        // A write lands at its sequence number's slot; a send in its receive's slot.
        const char* slot = send ? qp.rx_slot(wc[i].wr_id) : qp.rx_slot(received);
        if (verify)
          ++(check_pattern(slot, bytes, pattern_seed(qp_seed, message_key(received))) ? c.rdma.verified
                                                                                      : c.rdma.corrupt);
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

void RoceEngine::echo(size_t q, std::stop_token stop) {
  Link& link = links_[q];
  RcQueuePair& qp = *link.qp;
  const PeerInfo& peer = link.peer;
  const bool send = cell_.rdma.verb == Verb::send;
  const uint32_t bytes = cell_.payload_bytes;
  const bool verify = cell_.rdma.verify_payload;
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
      ++c.rdma.completions;
      if (wc[i].status != IBV_WC_SUCCESS) fail_completion(q, c, wc[i]);
      if (!is_receive(wc[i])) continue;  // a signalled reply went out
      const uint32_t tag = ntohl(wc[i].imm_data);
      const bool tagged = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0 && tag_phase_index(tag) < kPhaseCount;
      if (!tagged || (send && wc[i].byte_len != bytes)) ++c.malformed;
      if (!tag_follows(tag, received)) ++c.rdma.out_of_order;
      if (verify) {
        ++(check_pattern(qp.rx_slot(0), bytes, pattern_seed(qp_seed, message_key(received))) ? c.rdma.verified
                                                                                             : c.rdma.corrupt);
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
