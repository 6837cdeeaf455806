// Server side of a socket ping-pong: every message straight back to its sender.
#include <netinet/in.h>
#include <sys/socket.h>

#include "datagram/header.hpp"
#include "engine/queue_cores.hpp"
#include "sys/clock.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_engines.hpp"

namespace spiral::ping_pong {

using namespace datagram;

namespace {
constexpr int kPublishEvery = 16;  // echoes between counter snapshots
}

EchoEngine::EchoEngine(const Cell& cell, Carrier carrier, uint32_t run_id)
    : EngineBase(queue_cores(cell.cores.rx, 1)),
      cell_(cell),
      carrier_(carrier),
      run_id_(run_id),
      spin_(ping_pong_options(cell).wait == PingPongOptions::Wait::spin) {}

void EchoEngine::open() {
  const auto at = ipv4_address(cell_.bind_address, cell_.base_port);
  if (carrier_ == Carrier::stream) {
    listener_ = tcp_listen(at);
  } else {
    fd_ = udp_bind(at);
    prepare_socket(fd_.get(), cell_, carrier_);
  }
  message_ = PageBuffer(cell_.payload_bytes);
}

void EchoEngine::run_queue(size_t q, std::stop_token stop) {
  if (carrier_ == Carrier::stream) echo_stream(q, stop);
  else echo_datagrams(q, stop);
}

void EchoEngine::echo_stream(size_t q, std::stop_token stop) {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  fd_ = accept_until(listener_.get(), deadline, [&] { return stop.stop_requested(); });
  if (!fd_) {
    if (stop.stop_requested()) return;
    throw RunFailure("no connection on tcp port " + std::to_string(cell_.base_port) + " within connect_timeout_ms");
  }
  listener_.reset();
  prepare_socket(fd_.get(), cell_, carrier_);
  const size_t bytes = cell_.payload_bytes;
  QueueCounters c;
  for (uint64_t n = 0;; ++n) {
    size_t length = 0;
    const Got got = receive_message(fd_.get(), carrier_, spin_, message_.data(), bytes, length, 0,
                                    [&] { return stop.stop_requested(); });
    if (got == Got::closed) {
      c.finished = true;
      break;
    }
    if (got == Got::timeout) break;  // stopped
    const Phase p = phase();
    PhaseCount& in = c.by_phase[index(p)];
    ++in.packets;
    in.bytes += bytes;
    send_message(fd_.get(), carrier_, message_.data(), bytes);
    PhaseCount& out = c.replies[index(p)];
    ++out.packets;
    out.bytes += bytes;
    if (n % kPublishEvery == 0) publish(q, c);
  }
  publish(q, c);
}

void EchoEngine::echo_datagrams(size_t q, std::stop_token stop) {
  const size_t bytes = cell_.payload_bytes;
  QueueCounters c;
  sockaddr_in peer{};
  for (uint64_t n = 0;; ++n) {
    size_t length = 0;
    unsigned peer_len = sizeof peer;
    const Got got = receive_message(fd_.get(), carrier_, spin_, message_.data(), bytes, length, 0,
                                    [&] { return stop.stop_requested(); }, &peer, &peer_len);
    if (got != Got::message) break;  // stopped
    if (length != bytes) {
      ++c.malformed;
      continue;
    }
    const DatagramHeader h = read_header(message_.data());
    if (h.magic != kMagic || h.run_id != run_id_) {
      ++c.foreign;
      continue;
    }
    const Phase p = phase();
    PhaseCount& in = c.by_phase[index(p)];
    ++in.packets;
    in.bytes += bytes;
    send_message(fd_.get(), carrier_, message_.data(), bytes, &peer, peer_len);
    PhaseCount& out = c.replies[index(p)];
    ++out.packets;
    out.bytes += bytes;
    if (n % kPublishEvery == 0) publish(q, c);
  }
  // Nothing marks a datagram run's end: once stopped, every ping the client waited for was echoed.
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::ping_pong
