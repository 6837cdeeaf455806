#include "transports/udp/udp_receiver.hpp"

#include <netinet/udp.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "transports/udp/proc_net_udp.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"
#include "datagram/header.hpp"

namespace spiral::udp {

using namespace datagram;  // the sequenced-datagram pieces shared with raw (src/datagram/)

namespace {
constexpr uint64_t kDefaultReceiveBuffer = 32u << 20;  // absorbs the receiver losing its core for a while
constexpr size_t kGroBufferBytes = 65536;               // GRO coalesces up to 64 KiB
constexpr size_t kControlBytes = CMSG_SPACE(sizeof(int));

int gro_segment_size(const msghdr& h, size_t fallback) {
  for (cmsghdr* cm = CMSG_FIRSTHDR(&h); cm; cm = CMSG_NXTHDR(const_cast<msghdr*>(&h), cm)) {
    if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
      int size = 0;
      std::memcpy(&size, CMSG_DATA(cm), sizeof size);
      return size;
    }
  }
  return static_cast<int>(fallback);
}
}  // namespace

UdpReceiver::UdpReceiver(const Cell& cell, uint32_t run_id)
    : EngineBase(queue_cores(cell.cores.rx, cell.pairs)),
      cell_(cell),
      run_id_(run_id),
      gro_(socket_options(cell).udp_gro),
      buffer_bytes_(gro_ ? kGroBufferBytes : cell.payload_bytes) {}

void UdpReceiver::open() {
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    Socket s;
    s.fd = udp_bind(ipv4_address(cell_.bind_address, static_cast<uint16_t>(cell_.base_port + i)));
    set_buffer(s.fd.get(), BufferSide::receive,
               socket_options(cell_).buffer_bytes ? socket_options(cell_).buffer_bytes : kDefaultReceiveBuffer);
    if (gro_) set_int_option(s.fd.get(), SOL_UDP, UDP_GRO, 1, "UDP_GRO");
    set_io_timeout(s.fd.get(), 50);
    s.buffers = PageBuffer(cell_.batch * buffer_bytes_, 0);
    s.control.resize(gro_ ? cell_.batch * kControlBytes : 0);
    s.iov.resize(cell_.batch);
    s.messages.resize(cell_.batch);
    sockets_.push_back(std::move(s));
  }
  const gpu::DatagramLayout layout{cell_.payload_bytes, kHeaderBytes, offsetof(DatagramHeader, seq)};
  gpu_ = gpu::GpuReceiver::datagrams(cell_, cell_.pairs, layout, buffer_bytes_, cell_.batch);
}

void UdpReceiver::set_phase(Phase phase) {
  EngineBase::set_phase(phase);
  gpu_.set_phase(phase);
}

gpu::GpuReport UdpReceiver::gpu_report() const { return gpu_.report(); }

void UdpReceiver::rearm(Socket& s, uint32_t used, char* area) const {
  for (uint32_t i = 0; i < used; ++i) {
    s.iov[i] = {area + i * buffer_bytes_, buffer_bytes_};
    msghdr& h = s.messages[i].msg_hdr;
    h = {};
    h.msg_iov = &s.iov[i];
    h.msg_iovlen = 1;
    if (gro_) {
      h.msg_control = s.control.data() + i * kControlBytes;
      h.msg_controllen = kControlBytes;
    }
  }
}

std::optional<uint64_t> UdpReceiver::account(size_t q, const char* data, size_t len, QueueCounters& c,
                                             SequenceTracker& seq) const {
  if (len != cell_.payload_bytes) {
    ++c.malformed;
    return std::nullopt;
  }
  const DatagramHeader h = read_header(data);
  if (h.magic != kMagic || h.run_id != run_id_ || h.pair != q) {
    ++c.foreign;
    return std::nullopt;
  }
  if (!(h.flags & kFlagMeasured)) {
    PhaseCount& warm = c.by_phase[index(Phase::warmup)];
    ++warm.packets;
    warm.bytes += len;
    return h.seq;
  }
  const Arrival a = seq.observe(h.seq);
  if (a == Arrival::fresh || a == Arrival::late) {
    PhaseCount& measured = c.by_phase[index(Phase::measure)];
    ++measured.packets;
    measured.bytes += len;
  }
  return h.seq;  // duplicates too: the reorder kernel keeps the first arrival
}

void UdpReceiver::run_queue(size_t q, std::stop_token stop) {
  Socket& s = sockets_[q];
  SequenceTracker seq;
  QueueCounters c;
  gpu::DatagramAssembler* gpu = gpu_.datagram(q);
  // Datagrams one receive buffer holds: one, or up to 64 KiB of them with GRO.
  const uint32_t per_buffer = static_cast<uint32_t>(std::max<size_t>(1, buffer_bytes_ / cell_.payload_bytes));
  rearm(s, cell_.batch, s.buffers.data());
  while (!stop.stop_requested()) {
    uint32_t vlen = cell_.batch;
    if (gpu) {  // straight into pinned staging, no more datagrams than the current window expects
      vlen = std::min(vlen, (gpu->room() + per_buffer - 1) / per_buffer);
      rearm(s, vlen, reinterpret_cast<char*>(gpu->space(size_t{vlen} * buffer_bytes_)));
    }
    int n = ::recvmmsg(s.fd.get(), s.messages.data(), vlen, MSG_WAITFORONE, nullptr);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;  // receive timeout: check for stop
      throw RunFailure(errno_message("recvmmsg", errno));
    }
    for (int i = 0; i < n; ++i) {
      const msghdr& h = s.messages[i].msg_hdr;
      const size_t len = s.messages[i].msg_len;
      const char* data = static_cast<const char*>(h.msg_iov->iov_base);
      if (h.msg_flags & MSG_TRUNC) {
        ++c.malformed;
        continue;
      }
      // With GRO one buffer holds several datagrams of the announced size (the last may be shorter).
      size_t segment = gro_ ? static_cast<size_t>(gro_segment_size(h, len)) : len;
      if (segment == 0) segment = std::max<size_t>(len, 1);
      for (size_t off = 0; off < len; off += segment) {
        const auto ours = account(q, data + off, std::min(segment, len - off), c, seq);
        if (gpu && ours) gpu->add(reinterpret_cast<const std::byte*>(data + off), *ours);
      }
    }
    if (gpu)
      gpu->end_burst(static_cast<size_t>(n) * buffer_bytes_);
    else
      rearm(s, static_cast<uint32_t>(n), s.buffers.data());
    const SequenceStats& st = seq.stats();
    c.seen_measured = st.any;
    c.min_seq = st.min_seq;
    c.max_seq = st.max_seq;
    c.duplicated = st.duplicated;
    c.reordered = st.reordered;
    c.stale = st.stale;
    publish(q, c);
  }
  if (gpu) gpu->finish();
  c.kernel_drops = udp_socket_drops(s.fd.get()).value_or(0);
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::udp
