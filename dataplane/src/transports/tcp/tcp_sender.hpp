#pragma once
// TCP sender: one connection per pair to server_address:base_port+i, each written by its own
// pinned thread in payload_bytes messages until the drain phase, then half-closed.
#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"

namespace spiral::tcp {

class TcpSender final : public EngineBase {
 public:
  explicit TcpSender(const Cell& cell);
  ~TcpSender() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Connection {
    Fd fd;
    PageBuffer message;
  };
  Cell cell_;
  std::vector<Connection> connections_;
};

}  // namespace spiral::tcp
