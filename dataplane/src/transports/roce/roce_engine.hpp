#pragma once
// The roce engine: one RC queue pair per queue, each served by its own pinned thread.
//
// Client (requester) and server (responder) meet per queue pair on TCP base_port + i: the client
// sends its QP description, the server connects its QP, posts its receives and answers with its
// own (peer_info.hpp). Then, by mode and verb:
//   bandwidth send/write: the client keeps up to the window in flight (SEND or RDMA WRITE with
//     immediate, every n-th signalled); the server counts each message from its receive
//     completion, into the phase the message's immediate carries.
//   bandwidth read: the client keeps up to the window of RDMA READs in flight from the server's
//     slots; the server's CPU takes no part.
//   latency: one message at a time; the server echoes sends and writes; a read is its own reply.
// At the end the client pads its last messages up to a signalled one, waits for every
// completion, and sends "fin" with its total so the server knows when everything arrived.
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "config/cell.hpp"
#include "control/channel.hpp"
#include "engine/engine_base.hpp"
#include "engine/engine_factory.hpp"
#include "gpu/receiver.hpp"
#include "sys/fd.hpp"
#include "transports/roce/device.hpp"
#include "engine/latency_histogram.hpp"
#include "transports/roce/peer_info.hpp"
#include "transports/roce/queue_pair.hpp"
#include "transports/roce/retry_counters.hpp"
#include "transports/roce/sizing.hpp"

namespace spiral::roce {

class RoceEngine final : public EngineBase, public gpu::GpuReporting {
 public:
  RoceEngine(const Cell& cell, Direction direction);
  ~RoceEngine() override { stop(); }

  void open() override;
  void set_phase(Phase phase) override;
  std::vector<QueueCounters> counters() const override;
  gpu::GpuReport gpu_report() const override { return gpu_.report(); }

 private:
  struct Link {
    std::unique_ptr<RcQueuePair> qp;
    Fd listener;                           // server, until the client's description arrived
    std::unique_ptr<ControlChannel> peer_channel;  // the queue pair's own TCP connection
    PeerInfo peer;
    Window window;                         // client: what it keeps in flight
  };

  void run_queue(size_t q, std::stop_token stop) override;
  void open_client();
  void open_server();
  void accept_client(size_t q, std::stop_token stop);
  void stream(size_t q, std::stop_token stop);       // client, bandwidth
  void ping(size_t q, std::stop_token stop);         // client, latency
  void sink(size_t q, std::stop_token stop);         // server, bandwidth send/write
  void echo(size_t q, std::stop_token stop);         // server, latency send/write
  void serve_reads(size_t q, std::stop_token stop);  // server, read
  // Posts the receives a queue pair starts with (server: rx_window; client in latency: replies).
  void post_initial_receives(RcQueuePair& qp);
  // The client's total, once its "fin" arrived on the queue pair's connection.
  std::optional<uint64_t> take_fin(Link& link, Millis wait);
  // Server, draining: whether the client's fin arrived (kept in `announced`) and `received`
  // reached the total it announced.
  bool every_announced_arrived(Link& link, std::optional<uint64_t>& announced, uint64_t received);
  // Counts a failed completion and those flushed after it, publishes, throws RunFailure.
  [[noreturn]] void fail_completion(size_t q, QueueCounters& c, const ibv_wc& first);
  void describe_to_stderr() const;

  Cell cell_;
  bool client_;
  QueueShape shape_;
  std::optional<OpenDevice> device_;  // declared before what it owns: released last
  ProtectionDomain pd_;
  std::vector<Link> links_;
  std::unique_ptr<LatencyHistogram> latency_;  // latency mode, queue pair 0
  RetryCounters retries_;
  std::atomic<uint64_t> retries_at_start_{0}, retries_in_window_{0};
  // Server with a GPU workload (send, write): each message is copied from its slot into the
  // queue pair's in-order window (docs/gpu-workloads.md).
  gpu::GpuReceiver gpu_;
};

}  // namespace spiral::roce
