#pragma once
// The two ends of a socket ping-pong (latency mode of tcp and udp), on one socket each:
//   PingEngine (client, the "sender"): sends a message, waits for its echo, times the round trip
//     into a histogram (measured window only), and only then sends the next: one in flight.
//   EchoEngine (server, the "receiver"): reads each message and sends it straight back.
// Counting (engine/counters.hpp): by_phase counts the requests each side saw (the client's by the
// phase it sent them in, the server's by its own phase), replies the echoes (the client's: those
// that came back, by their request's phase). On udp the messages carry the datagram header
// (src/datagram/): the client matches an echo to its ping by sequence number, and a ping whose
// echo has not come within kDatagramReplyTimeoutNs is lost; a tcp ping unanswered for
// kStreamReplyTimeoutNs fails the run.
#include <memory>

#include "engine/engine_base.hpp"
#include "engine/latency_histogram.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"
#include "transports/ping_pong/ping_pong_io.hpp"

namespace spiral::ping_pong {

constexpr int64_t kStreamReplyTimeoutNs = 5'000'000'000;
constexpr int64_t kDatagramReplyTimeoutNs = 1'000'000'000;

class PingEngine final : public EngineBase {
 public:
  PingEngine(const Cell& cell, Carrier carrier, uint32_t run_id);
  ~PingEngine() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;
  // Waits for the echo of ping `seq`; false when it did not come in time (datagrams only).
  bool await_echo(uint64_t seq, int64_t deadline_ns, QueueCounters& c);

  Cell cell_;
  Carrier carrier_;
  uint32_t run_id_;
  bool spin_;
  Fd fd_;
  PageBuffer ping_, echo_;
  std::unique_ptr<LatencyHistogram> round_trips_;  // allocated once, before the run
};

class EchoEngine final : public EngineBase {
 public:
  EchoEngine(const Cell& cell, Carrier carrier, uint32_t run_id);
  ~EchoEngine() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;
  void echo_stream(size_t q, std::stop_token stop);
  void echo_datagrams(size_t q, std::stop_token stop);

  Cell cell_;
  Carrier carrier_;
  uint32_t run_id_;
  bool spin_;
  Fd listener_;  // stream: until the client connects
  Fd fd_;
  PageBuffer message_;
};

// The engine of one side: the client pings, the server echoes.
inline std::unique_ptr<Engine> make_engine(const Cell& c, Direction d, uint32_t run_id, Carrier carrier) {
  if (d == Direction::send) return std::make_unique<PingEngine>(c, carrier, run_id);
  return std::make_unique<EchoEngine>(c, carrier, run_id);
}

// Sequence number in a stream message's first 8 bytes (when it has 8), so the client checks each
// echo belongs to its ping.
constexpr size_t kStreamStampBytes = 8;

}  // namespace spiral::ping_pong
