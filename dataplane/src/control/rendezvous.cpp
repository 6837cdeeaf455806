#include "control/rendezvous.hpp"

#include <atomic>
#include <iostream>
#include <thread>

#include "control/channel.hpp"
#include "sys/errors.hpp"
#include "sys/socket.hpp"

namespace spiral {

namespace {

constexpr Millis kAnnounceWait{2000};

// The parser checked and split the rendezvous' host:port (config/cell_parse.cpp).
sockaddr_in rendezvous_at(const Cell& cell, Clock::time_point deadline) {
  return resolve_ipv4_until(cell.rendezvous_host, cell.rendezvous_port, deadline);
}

}  // namespace

void announce_to_rendezvous(const Cell& cell) {
  static std::atomic<bool> done{false};
  if (cell.rendezvous.empty() || cell.announce_address.empty() || done.exchange(true)) return;
  try {
    const auto deadline = Clock::now() + kAnnounceWait;
    ControlChannel channel(tcp_connect_until(rendezvous_at(cell, deadline), deadline));
    channel.send({{"type", "announce"}, {"key", cell.rendezvous_key}, {"address", cell.announce_address}});
    channel.expect("announced", kAnnounceWait);
  } catch (const std::exception& e) {
    std::cerr << "spiral-dataplane: rendezvous " << cell.rendezvous << " did not take this rank's address ("
              << e.what() << "); the operator gives it to the other ranks from the kubelet's report\n";
  }
}

void resolve_rendezvous(Cell& cell) {
  if (cell.rendezvous.empty() || !cell.announce_address.empty()) return;
  const auto deadline = Clock::now() + Millis(cell.connect_timeout_ms);
  std::string last = "no answer";
  while (Clock::now() < deadline) {
    try {
      ControlChannel channel(tcp_connect_until(rendezvous_at(cell, deadline), deadline));
      channel.send({{"type", "wait"}, {"key", cell.rendezvous_key}});
      const auto left = Millis(std::max<int64_t>(millis_between(Clock::now(), deadline), 1));
      const auto reply = channel.expect("address", left);
      cell.server_address = reply.value("address", std::string());
      if (!cell.server_address.empty()) return;
      last = "an empty address";
    } catch (const BadInput& e) {
      last = e.what();  // not reachable until the deadline
      break;
    } catch (const std::exception& e) {
      last = e.what();  // the operator restarted or went away: ask again
      std::this_thread::sleep_for(Millis(200));
    }
  }
  throw RunFailure("rank 0's address did not come from the operator's rendezvous " + cell.rendezvous + " within " +
                   std::to_string(cell.connect_timeout_ms) + " ms (" + last +
                   "); if a NetworkPolicy keeps cell pods from the manager, allow it or install the chart with "
                   "rendezvous.enabled=false");
}

}  // namespace spiral
