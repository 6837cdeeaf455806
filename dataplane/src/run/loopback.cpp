// Loopback: server and client in one process. Two-sided kinds still meet over the control
// connection, so the code path is the same as across hosts; in-process kinds run without one.
#include <atomic>
#include <future>
#include <sstream>

#include "run/roles.hpp"
#include "sys/errors.hpp"

namespace spiral {

RunResult run_loopback(const Cell& cell, std::ostream* progress) {
  if (cell.kind->run_mode == RunMode::in_process)
    return cell.search ? run_search_in_process(cell) : run_in_process(cell, progress);
  if (cell.kind->run_mode == RunMode::ranks) return run_ranks(cell);
  Cell server = cell;
  server.role = Role::server;
  server.ready_file.clear();
  // The client connects at once; if it fails before that, the server must not wait long.
  server.accept_timeout_ms = cell.connect_timeout_ms;
  Cell client = cell;
  client.role = Role::client;

  std::promise<void> listening;
  std::atomic<bool> announced{false};
  std::ostringstream ready_line;  // the ready event is internal here
  auto server_run = std::async(std::launch::async, [&] {
    try {
      return run_server(server, ready_line, [&] {
        announced = true;
        listening.set_value();
      });
    } catch (...) {
      // A set-up error (port in use) must reach the client side instead of a server that never listens.
      if (!announced) listening.set_exception(std::current_exception());
      throw;
    }
  });
  listening.get_future().get();  // rethrows the server's set-up error
  RunResult r = client.search ? run_search_client(client) : run_client(client);
  try {
    server_run.get();
  } catch (const std::exception&) {
    // The client's result already carries what went wrong on the server side.
  }
  return r;
}

}  // namespace spiral
