#include "transports/tcp/tcp_receiver.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"

namespace spiral::tcp {

namespace {
constexpr size_t kReadBytes = 256 * 1024;  // per recv(): large reads keep syscalls per byte low

// Diagnostic (hack/gpu/tcp-gap.sh): SPIRAL_TCP_RECV_SPAN_BYTES=N makes a receiver without a GPU
// workload recv() into N bytes of buffer, cycled through as the GPU path cycles through its
// windows (3 x 8 MiB by default), instead of one 256 KiB buffer that stays in cache. It tells
// whether the GPU path's cost is where recv() writes or the CUDA work.
size_t recv_span_bytes() {
  const char* v = std::getenv("SPIRAL_TCP_RECV_SPAN_BYTES");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end || n > (1ull << 32)) throw BadInput("SPIRAL_TCP_RECV_SPAN_BYTES: expected bytes up to 4 GiB, got \"" + std::string(v) + "\"");
  return static_cast<size_t>(n);
}
}

TcpReceiver::TcpReceiver(const Cell& cell) : EngineBase(queue_cores(cell.cores.rx, cell.pairs)), cell_(cell) {}

void TcpReceiver::open() {
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    Port p;
    p.listener = tcp_listen(ipv4_address(cell_.bind_address, static_cast<uint16_t>(cell_.base_port + i)));
    // Set on the listener so accepted sockets inherit it before the window is negotiated.
    const uint64_t buffer_bytes = socket_options(cell_).buffer_bytes;
    if (buffer_bytes) set_buffer(p.listener.get(), BufferSide::receive, buffer_bytes);
    p.buffer = PageBuffer(std::max<size_t>({kReadBytes, cell_.payload_bytes, recv_span_bytes()}));
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
  const size_t read_bytes = std::max<size_t>(kReadBytes, cell_.payload_bytes);
  size_t span_at = 0;   // the diagnostic span: where the next recv() writes
  while (!stop.stop_requested()) {
    char* into = port.buffer.data();
    size_t room = port.buffer.size();
    if (port.buffer.size() > read_bytes && !gpu) {  // SPIRAL_TCP_RECV_SPAN_BYTES
      if (port.buffer.size() - span_at < read_bytes) span_at = 0;
      into += span_at;
      room = read_bytes;
    }
    if (gpu) {  // straight into the pinned window: the stream is gathered in order as it arrives
      std::span<std::byte> space = gpu->space();
      into = reinterpret_cast<char*>(space.data());
      room = std::min(space.size(), read_bytes);  // no smaller reads than without the GPU
    }
    const auto recv_start = Clock::now();  // two vDSO clock reads per recv() of up to 256 KiB: cheap to leave on
    ssize_t n = ::recv(fd, into, room, 0);
    c.recv_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - recv_start).count());
    ++c.recv_calls;
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
    span_at += static_cast<size_t>(n);
    bucket.bytes += static_cast<uint64_t>(n);
    bucket.packets += total / cell_.payload_bytes - messages_before;
    publish(q, c);
    if (gpu) gpu->commit(static_cast<size_t>(n));
  }
  if (gpu) gpu->finish();
  publish(q, c);
}

}  // namespace spiral::tcp
