#pragma once
// UDP sender: one connected socket per pair, batches of numbered datagrams with sendmmsg
// (optionally as GSO super-buffers), unpaced or paced by a token bucket per pair.
#include <netinet/in.h>
#include <sys/socket.h>

#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"

namespace spiral::udp {

class UdpSender final : public EngineBase {
 public:
  UdpSender(const Cell& cell, uint32_t run_id);
  ~UdpSender() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Socket {
    Fd fd;
    sockaddr_in to{};      // the pair's server, connected again from the sender's own core
    PageBuffer datagrams;  // batch * payload_bytes, laid out back to back
    std::vector<iovec> iov;
    std::vector<mmsghdr> messages;
  };
  // Points the messages at the first `datagrams` datagrams; returns how many messages that is.
  uint32_t prepare_messages(Socket& s, uint32_t datagrams) const;

  Cell cell_;
  uint32_t run_id_;
  uint32_t segments_per_message_ = 1;  // > 1 with GSO
  std::vector<Socket> sockets_;
};

}  // namespace spiral::udp
