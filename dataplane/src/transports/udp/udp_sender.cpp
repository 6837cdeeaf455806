#include "transports/udp/udp_sender.hpp"

#include <netinet/udp.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <optional>

#include "sys/errors.hpp"
#include "engine/queue_cores.hpp"
#include "sys/socket.hpp"
#include "transports/ping_pong/ping_pong_options.hpp"
#include "datagram/header.hpp"
#include "engine/token_bucket.hpp"

namespace spiral::udp {

using namespace datagram;  // the sequenced-datagram pieces shared with raw (src/datagram/)

namespace {
constexpr uint64_t kDefaultSendBuffer = 4u << 20;
constexpr uint32_t kGsoMaxSegments = 64;      // UDP_MAX_SEGMENTS in kernels before 6.9
constexpr uint32_t kGsoMaxBytes = 65000;      // one GSO send stays below the 64 KiB IP limit

void sleep_ns(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}
}  // namespace

UdpSender::UdpSender(const Cell& cell, uint32_t run_id)
    : EngineBase(queue_cores(cell.cores.tx, cell.pairs)), cell_(cell), run_id_(run_id) {
  if (socket_options(cell_).udp_gso)
    segments_per_message_ = std::max<uint32_t>(1, std::min(kGsoMaxSegments, kGsoMaxBytes / cell_.payload_bytes));
}

void UdpSender::open() {
  const auto deadline = Clock::now() + Millis(cell_.connect_timeout_ms);
  for (uint32_t i = 0; i < cell_.pairs; ++i) {
    auto to = resolve_ipv4_until(pair_server_address(cell_, i), static_cast<uint16_t>(cell_.base_port + i), deadline);
    Socket s;
    s.fd = udp_connected(to);
    s.to = to;
    const SocketOptions& o = socket_options(cell_);
    set_buffer(s.fd.get(), BufferSide::send, o.buffer_bytes ? o.buffer_bytes : kDefaultSendBuffer);
    if (o.udp_gso) set_int_option(s.fd.get(), SOL_UDP, UDP_SEGMENT, static_cast<int>(cell_.payload_bytes), "UDP_SEGMENT");
    set_io_timeout(s.fd.get(), 100);
    s.datagrams = PageBuffer(size_t{cell_.batch} * cell_.payload_bytes);
    const uint32_t max_messages = (cell_.batch + segments_per_message_ - 1) / segments_per_message_;
    s.iov.resize(max_messages);
    s.messages.resize(max_messages);
    sockets_.push_back(std::move(s));
  }
}

uint32_t UdpSender::prepare_messages(Socket& s, uint32_t datagrams) const {
  uint32_t m = 0;
  for (uint32_t first = 0; first < datagrams; first += segments_per_message_, ++m) {
    const uint32_t segments = std::min(segments_per_message_, datagrams - first);
    s.iov[m].iov_base = s.datagrams.data() + size_t{first} * cell_.payload_bytes;
    s.iov[m].iov_len = size_t{segments} * cell_.payload_bytes;
    s.messages[m].msg_hdr = {};
    s.messages[m].msg_hdr.msg_iov = &s.iov[m];
    s.messages[m].msg_hdr.msg_iovlen = 1;
  }
  return m;
}

void UdpSender::run_queue(size_t q, std::stop_token stop) {
  Socket& s = sockets_[q];
  // Connect again from this (pinned) thread: the socket caches the output route, and IPv4 caches
  // output routes per CPU, so open()'s connects on the main thread gave every pair the same route
  // entry, whose reference count each datagram takes and drops (sk_dst_check, dst_release): one
  // cache line bouncing between all sender cores. From its own core each pair gets its own.
  if (::connect(s.fd.get(), reinterpret_cast<const sockaddr*>(&s.to), sizeof s.to) != 0)
    throw RunFailure(errno_message("udp connect from the sender's core", errno));
  const uint32_t payload = cell_.payload_bytes;
  std::optional<TokenBucket> bucket;
  uint32_t per_wakeup = 1;  // datagrams worth waking up for
  if (cell_.target_mbps) {
    const double bytes_per_second = static_cast<double>(cell_.target_mbps) * 1e6 / 8.0 / cell_.pairs;
    // Wake for ~200 us of traffic (at most one batch): each sleep and wake-up costs a few us of
    // the sender's core, which at 50 us granularity kept a sender paced at 90 % of its unpaced
    // rate below the target; 200 us bursts are still far below what a receive buffer holds.
    per_wakeup = std::clamp<uint32_t>(static_cast<uint32_t>(bytes_per_second * 200e-6 / payload), 1, cell_.batch);
    // 20 ms of tokens (at most 8 MiB, a quarter of the default receive buffer): a sender that
    // lost its core to another process catches up and still holds the target on a busy host.
    const double burst = std::max<double>(double(payload) * std::max(segments_per_message_, per_wakeup),
                                          std::min(bytes_per_second * 0.020, double(8u << 20)));
    bucket.emplace(bytes_per_second, burst, now_ns());
    prctl(PR_SET_TIMERSLACK, 1000UL);  // 1 us: nanosleep wakes close to the asked time
  }
  QueueCounters c;
  uint64_t seq = 0;

  while (!stop.stop_requested()) {
    const Phase p = phase();
    if (p == Phase::drain) break;
    uint32_t n = cell_.batch;
    if (bucket) {
      const int64_t wait = bucket->wait_ns(now_ns(), payload * per_wakeup);
      if (wait > 2000) {
        sleep_ns(wait);
        continue;
      }
      n = bucket->take(now_ns(), payload, cell_.batch);
      if (n == 0) continue;
    }
    const bool measured = p == Phase::measure;
    const uint16_t flags = measured ? kFlagMeasured : 0;
    for (uint32_t i = 0; i < n; ++i)
      write_header(s.datagrams.data() + size_t{i} * payload,
                   DatagramHeader{kMagic, run_id_, seq + i, static_cast<uint16_t>(q), flags, 0});
    const uint32_t messages = prepare_messages(s, n);
    int sent_messages = ::sendmmsg(s.fd.get(), s.messages.data(), messages, 0);
    if (sent_messages < 0) {
      // No room in the queue, or an ICMP "port unreachable" from a receiver that is not there:
      // the datagrams were not sent and keep their sequence numbers for the next try.
      if (errno == EAGAIN || errno == ENOBUFS || errno == ECONNREFUSED || errno == EINTR) {
        ++c.send_errors;
        continue;
      }
      throw RunFailure(errno_message("sendmmsg", errno));
    }
    const uint32_t sent = std::min<uint32_t>(n, static_cast<uint32_t>(sent_messages) * segments_per_message_);
    if (measured && sent > 0) {
      if (!c.sent_measured) c.first_seq = seq;
      c.sent_measured = true;
      c.last_seq = seq + sent - 1;
    }
    seq += sent;
    PhaseCount& bucket_count = c.by_phase[index(p)];
    bucket_count.packets += sent;
    bucket_count.bytes += uint64_t{sent} * payload;
    publish(q, c);
  }
  c.finished = true;
  publish(q, c);
}

}  // namespace spiral::udp
