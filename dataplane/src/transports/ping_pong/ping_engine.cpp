// Client side of a socket ping-pong: one message in flight, each round trip timed.
#include <sys/socket.h>

#include <cstring>

#include "datagram/header.hpp"
#include "engine/queue_cores.hpp"
#include "sys/clock.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_engines.hpp"

namespace spiral::ping_pong {

using namespace datagram;

PingEngine::PingEngine(const Cell& cell, Carrier carrier, uint32_t run_id)
    : EngineBase(queue_cores(cell.cores.tx, 1)),
      cell_(cell),
      carrier_(carrier),
      run_id_(run_id),
      spin_(ping_pong_options(cell).wait == PingPongOptions::Wait::spin) {}

void PingEngine::open() {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  const auto to = resolve_ipv4_until(cell_.server_address, cell_.base_port, deadline);
  fd_ = carrier_ == Carrier::stream ? tcp_connect_until(to, deadline) : udp_connected(to);
  prepare_socket(fd_.get(), cell_, carrier_);
  ping_ = PageBuffer(cell_.payload_bytes);
  echo_ = PageBuffer(cell_.payload_bytes);
  round_trips_ = std::make_unique<LatencyHistogram>();
}

bool PingEngine::await_echo(uint64_t seq, int64_t deadline_ns, QueueCounters& c) {
  const size_t bytes = cell_.payload_bytes;
  for (;;) {
    size_t length = 0;
    const Got got = receive_message(fd_.get(), carrier_, spin_, echo_.data(), bytes, length, deadline_ns,
                                    [] { return false; });  // a stop waits for the echo in flight
    if (got == Got::closed) throw RunFailure("the echo side closed the connection during the run");
    if (got == Got::timeout) {
      if (carrier_ == Carrier::stream)
        throw RunFailure("no echo of message " + std::to_string(seq) + " within " +
                         std::to_string(kStreamReplyTimeoutNs / 1'000'000'000) + " s");
      return false;
    }
    if (carrier_ == Carrier::stream) {
      uint64_t stamp = seq;
      if (bytes >= kStreamStampBytes) std::memcpy(&stamp, echo_.data(), sizeof stamp);
      if (stamp != seq)
        throw RunFailure("echo out of step: expected message " + std::to_string(seq) + ", got " + std::to_string(stamp));
      return true;
    }
    if (length != bytes) {
      ++c.malformed;
      continue;
    }
    const DatagramHeader h = read_header(echo_.data());
    if (h.magic != kMagic || h.run_id != run_id_) {
      ++c.foreign;
      continue;
    }
    if (h.seq != seq) {  // the late echo of a ping already counted lost
      ++c.stale;
      continue;
    }
    return true;
  }
}

void PingEngine::run_queue(size_t q, std::stop_token stop) {
  const size_t bytes = cell_.payload_bytes;
  const int64_t timeout = carrier_ == Carrier::stream ? kStreamReplyTimeoutNs : kDatagramReplyTimeoutNs;
  QueueCounters c;
  uint64_t seq = 0;
  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    if (carrier_ == Carrier::datagram) {
      write_header(ping_.data(), DatagramHeader{kMagic, run_id_, seq, 0,
                                                static_cast<uint16_t>(p == Phase::measure ? kFlagMeasured : 0), 0});
    } else if (bytes >= kStreamStampBytes) {
      std::memcpy(ping_.data(), &seq, sizeof seq);
    }
    const int64_t started = now_ns();
    send_message(fd_.get(), carrier_, ping_.data(), bytes);
    PhaseCount& sent = c.by_phase[index(p)];
    ++sent.packets;
    sent.bytes += bytes;
    const bool answered = await_echo(seq, started + timeout, c);
    const int64_t elapsed = now_ns() - started;
    if (answered) {
      PhaseCount& back = c.replies[index(p)];
      ++back.packets;
      back.bytes += bytes;
      if (p == Phase::measure) round_trips_->add(elapsed);
    }
    ++seq;
    if ((seq & 15) == 0) publish(q, c);
  }
  c.latency = round_trips_->summary(2);  // one-way: half the round trip, as sockperf and qperf report
  if (carrier_ == Carrier::stream) ::shutdown(fd_.get(), SHUT_WR);  // the echo side reads to the end
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::ping_pong
