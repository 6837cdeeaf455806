// The client (sender) side of a run: meets the server on the control connection, sends for
// warm-up plus the window, then trades reports so its result covers both sides.
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

}  // namespace

RunResult run_client(const Cell& cell, std::ostream* progress_out) {
  require_cores_available(cell.cores.tx, "cores.tx");
  const auto deadline = Clock::now() + Millis(cell.connect_timeout_ms);
  const sockaddr_in server = resolve_ipv4_until(cell.server_address, cell.control_port, deadline);
  if (cell.kind->client_preflight) cell.kind->client_preflight(cell, server);

  std::vector<LinkEnd> links = client_links(cell, cell.base_port, deadline);
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
