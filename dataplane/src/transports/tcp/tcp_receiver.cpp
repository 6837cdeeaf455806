#include "transports/tcp/tcp_receiver.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"

namespace spiral::tcp {

namespace {
constexpr size_t kReadBytes = 256 * 1024;  // per recv(): large reads keep syscalls per byte low
}

TcpReceiver::TcpReceiver(const Cell& cell) : EngineBase(queue_cores(cell.cores.rx, cell.pairs)), cell_(cell) {}

void TcpReceiver::open() {
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    Port p;
    p.listener = tcp_listen(ipv4_address(cell_.bind_address, static_cast<uint16_t>(cell_.base_port + i)));
    // Set on the listener so accepted sockets inherit it before the window is negotiated.
    if (cell_.socket_buffer_bytes) set_buffer(p.listener.get(), BufferSide::receive, cell_.socket_buffer_bytes);
    p.buffer = PageBuffer(std::max<size_t>(kReadBytes, cell_.payload_bytes));
    ports_.push_back(std::move(p));
  }
  gpu_ = gpu::GpuReceiver::streams(cell_, cell_.pairs);
}

void TcpReceiver::set_phase(Phase phase) {
  EngineBase::set_phase(phase);
  gpu_.set_phase(phase);
}

gpu::GpuReport TcpReceiver::gpu_report() const { return gpu_.report(); }

void TcpReceiver::run_queue(size_t q, std::stop_token stop) {
  Port& port = ports_[q];
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  port.connection = accept_until(port.listener.get(), deadline, [&] { return stop.stop_requested(); });
  if (!port.connection) {
    if (stop.stop_requested()) return;
    throw RunFailure("no connection on tcp port " + std::to_string(cell_.base_port + q) +
                     " within connect_timeout_ms");
  }
  const int fd = port.connection.get();
  set_io_timeout(fd, 100);
  gpu::StreamAssembler* gpu = gpu_.stream(q);
  QueueCounters c;
  uint64_t total = 0;  // messages are counted as whole payload_bytes units of the stream
  while (!stop.stop_requested()) {
    char* into = port.buffer.data();
    size_t room = port.buffer.size();
    if (gpu) {  // straight into the pinned window: the stream is gathered in order as it arrives
      std::span<std::byte> space = gpu->space();
      into = reinterpret_cast<char*>(space.data());
      room = std::min(space.size(), port.buffer.size());  // no smaller reads than without the GPU
    }
    ssize_t n = ::recv(fd, into, room, 0);
    if (n == 0) {
      c.finished = true;
      break;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      throw RunFailure(errno_message("recv", errno));
    }
    PhaseCount& bucket = c.by_phase[index(phase())];
    const uint64_t messages_before = total / cell_.payload_bytes;
    total += static_cast<uint64_t>(n);
    bucket.bytes += static_cast<uint64_t>(n);
    bucket.packets += total / cell_.payload_bytes - messages_before;
    publish(q, c);
    if (gpu) gpu->commit(static_cast<size_t>(n));
  }
  if (gpu) gpu->finish();
  publish(q, c);
}

}  // namespace spiral::tcp
