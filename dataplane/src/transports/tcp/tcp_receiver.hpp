#pragma once
// TCP receiver: listens on bind_address:base_port+i, accepts one connection per pair once
// started, and reads it to EOF on its own pinned thread, counting bytes by phase. With a GPU
// workload each pair reads into its GPU stream assembler's pinned windows instead.
#include <memory>
#include <vector>

#include "config/cell.hpp"
#include "engine/engine_base.hpp"
#include "gpu/receiver.hpp"
#include "sys/fd.hpp"
#include "sys/page_buffer.hpp"

namespace spiral::tcp {

class TcpReceiver final : public EngineBase, public gpu::GpuReporting {
 public:
  explicit TcpReceiver(const Cell& cell);
  ~TcpReceiver() override { stop(); }
  void open() override;
  void set_phase(Phase phase) override;
  gpu::GpuReport gpu_report() const override;

 private:
  void run_queue(size_t q, std::stop_token stop) override;

  struct Port {
    Fd listener;
    Fd connection;
    PageBuffer buffer;
  };
  Cell cell_;
  std::vector<Port> ports_;
  gpu::GpuReceiver gpu_;  // one stream assembler per pair; inactive without a workload
};

}  // namespace spiral::tcp
