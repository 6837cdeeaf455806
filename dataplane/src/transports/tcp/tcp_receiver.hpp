#pragma once
// TCP receiver: listens on bind_address:base_port+i, accepts one connection per pair once
// started, and reads it to EOF on its own pinned thread, counting bytes by phase.
#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"

namespace spiral::tcp {

class TcpReceiver final : public EngineBase {
 public:
  explicit TcpReceiver(const Cell& cell);
  ~TcpReceiver() override { stop(); }
  void open() override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Port {
    Fd listener;
    Fd connection;
    PageBuffer buffer;
  };
  Cell cell_;
  std::vector<Port> ports_;
};

}  // namespace spiral::tcp
