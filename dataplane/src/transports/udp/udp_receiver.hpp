#pragma once
// UDP receiver: one socket per pair on bind_address:base_port+i, drained with recvmmsg
// (optionally GRO), every datagram checked and accounted per pair by its sequence number.
#include <sys/socket.h>

#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"
#include "transports/udp/sequence_tracker.hpp"

namespace spiral::udp {

class UdpReceiver final : public EngineBase {
 public:
  UdpReceiver(const Cell& cell, uint32_t run_id);
  ~UdpReceiver() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Socket {
    Fd fd;
    PageBuffer buffers;          // batch receive buffers back to back
    std::vector<char> control;   // GRO cmsg space per message
    std::vector<iovec> iov;
    std::vector<mmsghdr> messages;
  };
  void rearm(Socket& s, uint32_t used) const;  // recvmmsg rewrote the first `used` headers
  void account(size_t q, const char* data, size_t len, QueueCounters& c, SequenceTracker& seq) const;

  Cell cell_;
  uint32_t run_id_;
  size_t buffer_bytes_;
  std::vector<Socket> sockets_;
};

}  // namespace spiral::udp
