#include "transports/tcp/tcp_sender.hpp"

#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <optional>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "engine/token_bucket.hpp"
#include "sys/clock.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"
#include "transports/tcp/tcp_info.hpp"

namespace spiral::tcp {

namespace {
void sleep_ns(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}
}  // namespace

TcpSender::TcpSender(const Cell& cell) : EngineBase(queue_cores(cell.cores.tx, cell.pairs)), cell_(cell) {}

void TcpSender::open() {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    auto to = resolve_ipv4_until(pair_server_address(cell_, i), static_cast<uint16_t>(cell_.base_port + i), deadline);
    Connection c;
    const SocketOptions& o = socket_options(cell_);
    c.fd = tcp_connect_until(to, deadline, [&o](int fd) {
      // 0 keeps the kernel's send-buffer autotuning (tcp_wmem); a fixed size turns it off.
      if (o.buffer_bytes) set_buffer(fd, BufferSide::send, o.buffer_bytes);
    });
    if (o.tcp_nodelay) set_int_option(c.fd.get(), IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
    set_io_timeout(c.fd.get(), 100);
    c.message = PageBuffer(cell_.payload_bytes);
    connections_.push_back(std::move(c));
  }
}

void TcpSender::run_queue(size_t q, std::stop_token stop) {
  Connection& conn = connections_[q];
  const int fd = conn.fd.get();
  const size_t message_bytes = conn.message.size();
  QueueCounters c;
  TcpStats at_measure_start;
  std::optional<uint64_t> snmp_at_measure_start;  // queue 0 only: the counters are the namespace's
  bool measuring = false;
  size_t offset = 0;  // into the current message
  // Application-level pacing, as iperf3 -b: each pair's sender gets target / pairs and starts a
  // message only when the bucket holds all of it. The bucket holds 100 ms of tokens (at least
  // one message): a sender that lost its core catches up, as iperf3's average-based throttle
  // does, and TCP's flow control, not a receive buffer, absorbs the catch-up burst.
  std::optional<TokenBucket> bucket;
  if (cell_.target_mbps) {
    const double bytes_per_second = static_cast<double>(cell_.target_mbps) * 1e6 / 8.0 / cell_.pairs;
    bucket.emplace(bytes_per_second, std::max<double>(double(message_bytes), bytes_per_second * 0.100), now_ns());
    prctl(PR_SET_TIMERSLACK, 1000UL);  // 1 us: nanosleep wakes close to the asked time
  }

  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    if (bucket && offset == 0) {
      const int64_t wait = bucket->wait_ns(now_ns(), static_cast<uint32_t>(message_bytes));
      if (wait > 2000) {
        sleep_ns(std::min<int64_t>(wait, 50'000'000));  // wake at least every 50 ms for the phase
        continue;
      }
      if (bucket->take(now_ns(), static_cast<uint32_t>(message_bytes), 1) == 0) continue;
    }
    if (p == Phase::measure && !measuring) {
      measuring = true;
      at_measure_start = read_tcp_stats(fd);
      if (q == 0) snmp_at_measure_start = namespace_tcp_drops();
    }
    ssize_t n = ::send(fd, conn.message.data() + offset, message_bytes - offset, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;  // send timeout: look at the phase again
      throw RunFailure(errno_message("send", errno));
    }
    PhaseCount& bucket = c.by_phase[index(p)];
    bucket.bytes += static_cast<uint64_t>(n);
    offset += static_cast<size_t>(n);
    if (offset == message_bytes) {
      ++bucket.packets;
      offset = 0;
    }
    publish(q, c);
  }
  if (measuring) {
    TcpStats end = read_tcp_stats(fd);
    c.retrans = end.total_retrans - at_measure_start.total_retrans;
    c.segs_out = end.segs_out - at_measure_start.segs_out;
    if (snmp_at_measure_start) {
      const auto snmp_end = namespace_tcp_drops();
      if (snmp_end && *snmp_end >= *snmp_at_measure_start) c.kernel_drops = *snmp_end - *snmp_at_measure_start;
    }
  }
  ::shutdown(fd, SHUT_WR);  // the receiver reads to EOF: every byte sent is counted there
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::tcp
