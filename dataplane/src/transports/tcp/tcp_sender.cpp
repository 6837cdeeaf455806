#include "transports/tcp/tcp_sender.hpp"

#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"
#include "transports/tcp/tcp_info.hpp"

namespace spiral::tcp {

TcpSender::TcpSender(const Cell& cell) : EngineBase(queue_cores(cell.cores.tx, cell.pairs)), cell_(cell) {}

void TcpSender::open() {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    auto to = resolve_ipv4_until(cell_.server_address, static_cast<uint16_t>(cell_.base_port + i), deadline);
    Connection c;
    c.fd = tcp_connect_until(to, deadline, [this](int fd) {
      // 0 keeps the kernel's send-buffer autotuning (tcp_wmem); a fixed size turns it off.
      if (cell_.socket_buffer_bytes) set_buffer(fd, BufferSide::send, cell_.socket_buffer_bytes);
    });
    if (cell_.tcp_nodelay) set_int_option(c.fd.get(), IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
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
  bool measuring = false;
  size_t offset = 0;  // into the current message

  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    if (p == Phase::measure && !measuring) {
      measuring = true;
      at_measure_start = read_tcp_stats(fd);
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
  }
  ::shutdown(fd, SHUT_WR);  // the receiver reads to EOF: every byte sent is counted there
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::tcp
