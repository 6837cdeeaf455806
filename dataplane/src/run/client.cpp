// The client (sender) side of a run: meets the server on the control connection, sends for
// warm-up plus the window, then trades reports so its result covers both sides.
#include <algorithm>
#include <optional>

#include "sys/errors.hpp"
#include "control/channel.hpp"
#include "control/messages.hpp"
#include "engine/engine_factory.hpp"
#include "run/outcome.hpp"
#include "run/roles.hpp"
#include "run/side_meter.hpp"
#include "run/wait.hpp"
#include "run/wire_links.hpp"
#include "sys/affinity.hpp"
#include "sys/socket.hpp"

namespace spiral {

namespace {

uint32_t await_welcome(ControlChannel& control, const Cell& cell) {
  auto message = control.poll(Millis(cell.connect_timeout_ms));
  if (!message) throw BadInput("server did not answer the hello within connect_timeout_ms");
  const std::string type = (*message)["type"].get<std::string>();
  if (type == "error") throw BadInput("server refused the run: " + message->value("reason", std::string()));
  if (type != "welcome" || !(*message)["run_id"].is_number_unsigned())
    throw RunFailure("control connection: expected a welcome, got \"" + type + "\"");
  return (*message)["run_id"].get<uint32_t>();
}

// The kind's preflight on every link, within the first second: what cannot run is refused
// before any traffic, and the server, which would otherwise wait accept_timeout_ms for a client
// that never comes, is told on a control connection of its own so that it ends refused too.
void preflight(const Cell& cell, const std::vector<LinkEnd>& links, const sockaddr_in& server) {
  if (!cell.kind->client_preflight) return;
  try {
    for (const LinkEnd& l : links) cell.kind->client_preflight(cell, ipv4_address(l.address, cell.base_port), l.netdev);
  } catch (const BadInput& e) {
    try {
      const auto deadline = Clock::now() + Millis(std::min<uint32_t>(cell.connect_timeout_ms, 2000));
      ControlChannel{tcp_connect_until(server, deadline)}.send(refused_message(e.what()));
    } catch (const std::exception&) {
      // no server listening: nobody waits
    }
    throw;
  }
}

}  // namespace

RunResult run_client(const Cell& cell, std::ostream* progress_out) {
  require_cores_available(cell.cores.tx, "cores.tx");
  const auto deadline = Clock::now() + Millis(cell.connect_timeout_ms);
  const sockaddr_in server = resolve_ipv4_until(cell.server_address, cell.control_port, deadline);
  std::vector<LinkEnd> links = client_links(cell, cell.base_port, deadline);
  preflight(cell, links, server);
  ControlChannel control(tcp_connect_until(server, deadline));
  auto hello = hello_message(cell);
  hello["links"] = links_to_json(links);
  control.send(hello);
  const uint32_t run_id = await_welcome(control, cell);
  auto engine = make_engine(cell, Direction::send, run_id);
  engine->open();

  SideMeter meter(cell, Direction::send);
  meter.watch(std::move(links));
  std::optional<ProgressLine> progress;  // one line a second for sbctl watch
  if (progress_out) progress.emplace(*progress_out, /*receiving=*/false, "queue");
  std::optional<SideReport> receiver;
  std::string failure;
  try {
    engine->start();
    wait_running(Clock::now() + Millis(cell.warmup_ms), *engine, control);
    engine->set_phase(Phase::measure);
    meter.begin();
    control.send(measure_message());
    if (progress) progress->begin(Clock::now());
    wait_running(Clock::now() + Millis(cell.duration_ms), *engine, control, progress ? &*progress : nullptr);
    engine->set_phase(Phase::drain);
    meter.end();
    engine->stop();
    control.send(end_message(meter.report(*engine)));
    // The server keeps receiving for up to grace_ms before it reports.
    auto report = control.expect("report", Millis(cell.grace_ms + 10'000));
    receiver = side_report_from_json(report.at("receiver"));
  } catch (const RunFailure& e) {
    failure = e.what();
  }
  engine->stop();
  SideReport sender = meter.report(*engine);
  RunResult r = combine(cell, &sender, receiver ? &*receiver : nullptr, meter.master_mpct());
  if (failure.empty() && !sender.failure.empty()) failure = "sender: " + sender.failure;
  if (failure.empty() && receiver && !receiver->failure.empty()) failure = "receiver: " + receiver->failure;
  settle(cell, r, failure);
  return r;
}

}  // namespace spiral
