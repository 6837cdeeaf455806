#pragma once
// UDP receiver: one socket per pair on bind_address:base_port+i, drained with recvmmsg
// (optionally GRO), every datagram checked and accounted per pair by its sequence number. With a
// GPU workload each pair receives into its GPU datagram assembler's pinned staging instead, and
// hands it every datagram of ours (warm-up included) by sequence number.
#include <sys/socket.h>

#include <memory>
#include <optional>
#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "gpu/receiver.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"
#include "datagram/sequence_tracker.hpp"

namespace spiral::udp {

using namespace datagram;  // the sequenced-datagram pieces shared with raw (src/datagram/)

class UdpReceiver final : public EngineBase, public gpu::GpuReporting {
 public:
  UdpReceiver(const Cell& cell, uint32_t run_id);
  ~UdpReceiver() override { stop(); }
  void open() override;
  void set_phase(Phase phase) override;
  gpu::GpuReport gpu_report() const override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Socket {
    Fd fd;
    PageBuffer buffers;          // batch receive buffers back to back
    std::vector<char> control;   // GRO cmsg space per message
    std::vector<iovec> iov;
    std::vector<mmsghdr> messages;
  };
  // recvmmsg rewrote the first `used` headers; their buffers start at `area` (stride buffer_bytes_)
  void rearm(Socket& s, uint32_t used, char* area) const;
  // The datagram's sequence number when it is one of ours (warm-up or measured), else nullopt.
  std::optional<uint64_t> account(size_t q, const char* data, size_t len, QueueCounters& c,
                                  SequenceTracker& seq) const;

  Cell cell_;
  uint32_t run_id_;
  bool gro_;  // UDP_GRO: buffers take coalesced datagrams, split at their segment size
  size_t buffer_bytes_;
  std::vector<Socket> sockets_;
  gpu::GpuReceiver gpu_;  // one datagram assembler per pair; inactive without a workload
};

}  // namespace spiral::udp
