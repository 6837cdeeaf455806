#include "engine/engine_factory.hpp"

#include "app/errors.hpp"
#include "transports/roce/roce_factory.hpp"
#include "transports/tcp/tcp_receiver.hpp"
#include "transports/tcp/tcp_sender.hpp"
#include "transports/udp/udp_receiver.hpp"
#include "transports/udp/udp_sender.hpp"

namespace spiral {

std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction, uint32_t run_id) {
  switch (cell.transport) {
    case Transport::tcp:
      if (direction == Direction::send) return std::make_unique<tcp::TcpSender>(cell);
      return std::make_unique<tcp::TcpReceiver>(cell);
    case Transport::udp:
      if (direction == Direction::send) return std::make_unique<udp::UdpSender>(cell, run_id);
      return std::make_unique<udp::UdpReceiver>(cell, run_id);
    case Transport::raw:  // its two engines share one DPDK environment: transports/raw/raw_loopback.cpp
      throw BadInput("transport raw has only the loopback role");
    case Transport::roce:
      return roce::make_engine(cell, direction);
  }
  return nullptr;
}

}  // namespace spiral
