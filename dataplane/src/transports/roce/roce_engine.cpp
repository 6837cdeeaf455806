#include "transports/roce/roce_engine.hpp"

#include <iostream>

#include "control/messages.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"
#include "transports/roce/pattern.hpp"
#include "transports/roce/roce_factory.hpp"
#include "transports/roce/roce_work.hpp"

namespace spiral::roce {

namespace {

int remote_access(const RdmaOptions& o, bool client) {
  if (o.verb == Verb::read) return client ? 0 : IBV_ACCESS_REMOTE_READ;
  if (o.verb == Verb::write) return o.mode == Mode::latency || !client ? IBV_ACCESS_REMOTE_WRITE : 0;
  return 0;
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
      shape_(client_ ? requester_shape(rdma_options(cell), cell.payload_bytes)
                     : responder_shape(rdma_options(cell), cell.payload_bytes, cell.workload != Workload::none)) {}

void RoceEngine::open() {
  device_.emplace(open_device(rdma_options(cell_), cell_.bind_address));
  if (cell_.payload_bytes > device_->max_msg_bytes)
    throw BadInput("payload_bytes " + std::to_string(cell_.payload_bytes) + " exceeds the largest message port " +
                   std::to_string(device_->port) + " of " + device_->name + " takes (max_msg_sz " +
                   std::to_string(device_->max_msg_bytes) + ")");
  pd_.reset(ibv_alloc_pd(device_->context.get()));
  if (!pd_) throw RunFailure(errno_message("roce: ibv_alloc_pd", errno));
  retries_ = RetryCounters("/sys/class/infiniband", device_->name, device_->port,
                           client_ ? RetryCounters::Side::requester : RetryCounters::Side::responder);
  if (rdma_options(cell_).mode == Mode::latency) latency_ = std::make_unique<LatencyHistogram>();
  const int access = remote_access(rdma_options(cell_), client_);
  for (uint32_t q = 0; q < cell_.pairs; ++q) {
    Link link;
    link.qp = std::make_unique<RcQueuePair>(*device_, pd_.get(), rdma_options(cell_), cell_.payload_bytes, shape_, access, q);
    links_.push_back(std::move(link));
  }
  if (!client_) gpu_ = gpu::GpuReceiver::streams(cell_, cell_.pairs);
  if (client_) open_client();
  else open_server();
  describe_to_stderr();
}

void RoceEngine::post_initial_receives(RcQueuePair& qp) {
  if (qp.shape().rx_window == 0) return;
  ReceivePoster receives(qp, rdma_options(cell_).verb == Verb::send, cell_.payload_bytes);
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
    link.peer_channel->send(to_message(link.qp->describe(rdma_options(cell_), cell_.payload_bytes)));
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
    link.window = effective_window(rdma_options(cell_), shape_, link.peer.rx_window);
    if (rdma_options(cell_).verb != Verb::read && link.peer.slots == 0)
      throw RunFailure("roce: the server offers no slots on queue pair " + std::to_string(q));
    if (rdma_options(cell_).verb == Verb::read && link.peer.slots == 0)
      throw RunFailure("roce: the server offers no memory to read on queue pair " + std::to_string(q));
  }
}

void RoceEngine::open_server() {
  for (uint32_t q = 0; q < cell_.pairs; ++q) {
    Link& link = links_[q];
    RcQueuePair& qp = *link.qp;
    if (rdma_options(cell_).verb == Verb::read && rdma_options(cell_).verify_payload)
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
                     std::to_string(cell_.pairs) + " RC queue pair(s), " + to_string(rdma_options(cell_).verb) + " " +
                     to_string(rdma_options(cell_).mode) + ", " + std::to_string(cell_.payload_bytes) + " B messages";
  if (client_ && !links_.empty())
    line += ", " + std::to_string(links_[0].window.in_flight) + " in flight (every " +
            std::to_string(links_[0].window.signal_every) + " signalled)";
  if (shape_.rx_window) line += ", " + std::to_string(shape_.rx_window) + " receives posted";
  line += ", " + std::to_string(shape_.tx_slots + shape_.rx_slots) + " x " + kib(slot_stride(cell_.payload_bytes)) +
          " registered (" + to_string(rdma_options(cell_).memory) + "), retries from " + retries_.names();
  std::cerr << line << "\n";
}

void RoceEngine::set_phase(Phase phase) {
  if (phase == Phase::measure) {
    retries_at_start_ = retries_.read();
  } else if (phase == Phase::drain && this->phase() == Phase::measure) {
    retries_in_window_ = retries_.read() - retries_at_start_;
  }
  EngineBase::set_phase(phase);
  gpu_.set_phase(phase);
}

std::vector<QueueCounters> RoceEngine::counters() const {
  auto queues = EngineBase::counters();
  if (!queues.empty()) queues[0].completion.retries = retries_in_window_.load();
  return queues;
}

void RoceEngine::run_queue(size_t q, std::stop_token stop) {
  const bool latency = rdma_options(cell_).mode == Mode::latency;
  const bool read = rdma_options(cell_).verb == Verb::read;
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
  const PeerInfo mine = link.qp->describe(rdma_options(cell_), cell_.payload_bytes);
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
    ++c.completion.wc_errors[std::min<size_t>(wc.status, kWcStatusSlots - 1)];
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
      ++c.completion.completions;
      if (wc[i].status != IBV_WC_SUCCESS) count(wc[i]);
    }
  }
  publish(q, c);
  throw RunFailure("roce: a work completion failed with " + wc_status_name(first.status) + " (" +
                   ibv_wc_status_str(first.status) + ", vendor error " + std::to_string(first.vendor_err) + ", " +
                   std::to_string(c.completion.errors()) + " failed in all)");
}

}  // namespace spiral::roce
