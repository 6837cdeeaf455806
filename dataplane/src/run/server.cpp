// The server (receiver) side of a run: listens, announces ready, follows the client's phase
// marks, keeps receiving for the grace period, then trades reports with the client. A cell with
// a rate search serves one such run per trial.
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "control/channel.hpp"
#include "control/messages.hpp"
#include "engine/engine_factory.hpp"
#include "output/progress.hpp"
#include "output/ready.hpp"
#include "run/outcome.hpp"
#include "run/roles.hpp"
#include "run/side_meter.hpp"
#include "run/wire_links.hpp"
#include "sys/affinity.hpp"
#include "sys/socket.hpp"

namespace spiral {

namespace {

uint32_t new_run_id() {
  std::random_device entropy;
  return entropy();
}

ControlChannel accept_client(const Cell& cell, int listener) {
  Fd connection = accept_until(listener, Clock::now() + Millis(cell.accept_timeout_ms),
                               [] { return pending_signal() != 0; });
  throw_if_signalled();
  if (!connection) throw RunFailure("no client connected within accept_timeout_ms");
  return ControlChannel(std::move(connection));
}

// Follows the client's marks until its "end", which carries the sender's report. The client's
// schedule (its hello) rules; a client silent far past it is gone.
SideReport follow_client(const Cell& cell, const nlohmann::json& hello, Engine& engine, ControlChannel& control,
                         SideMeter& meter, ProgressLine& progress) {
  const uint64_t schedule_ms = hello.value("warmup_milli", uint64_t{0}) + hello.value("seconds_milli", uint64_t{0});
  const auto give_up = Clock::now() + Millis(schedule_ms + cell.connect_timeout_ms + 30'000);
  for (;;) {
    throw_if_signalled();
    if (auto failure = engine.failure()) throw RunFailure(*failure);
    if (progress.due(Clock::now())) progress.print(Clock::now(), engine.counters());
    auto message = control.poll(Millis(20));
    if (!message) {
      if (Clock::now() > give_up) throw RunFailure("client went silent during the run");
      continue;
    }
    const std::string type = (*message)["type"].get<std::string>();
    if (type == "measure") {
      engine.set_phase(Phase::measure);
      meter.begin();
      progress.begin(Clock::now());
    } else if (type == "end") {
      engine.set_phase(Phase::drain);
      meter.end();
      return side_report_from_json(message->at("sender"));
    } else if (type == "error") {
      throw RunFailure("client reported: " + message->value("reason", std::string()));
    } else {
      throw RunFailure("control connection: unexpected \"" + type + "\"");
    }
  }
}

void drain(const Cell& cell, const Engine& engine, const SideReport& sender) {
  const auto until = Clock::now() + Millis(cell.grace_ms);
  // The kind says when everything the sender sent has been accounted for, so the grace period
  // ends early in the common case.
  while (Clock::now() < until && !(cell.kind->caught_up && cell.kind->caught_up(cell, engine.counters(), sender))) {
    throw_if_signalled();
    std::this_thread::sleep_for(Millis(10));
  }
}

// One run on an accepted control connection whose hello arrived: the measured exchange, then
// the reports. The engine is open; run_id tags the client's traffic.
RunResult serve_run(const Cell& cell, const nlohmann::json& hello, ControlChannel& control, Engine& engine,
                    uint32_t run_id, std::ostream& out) {
  if (std::string mismatch = hello_mismatch(hello, cell); !mismatch.empty()) {
    control.send(error_message(mismatch));
    throw BadInput("client's cell does not match: " + mismatch);
  }
  SideMeter meter(cell, Direction::receive);
  meter.watch(server_links(cell, hello));
  std::optional<SideReport> sender;
  std::string failure;
  try {
    engine.start();
    control.send(welcome_message(run_id));
    ProgressLine progress(out, /*receiving=*/true, "queue");  // one line a second for sbctl watch
    sender = follow_client(cell, hello, engine, control, meter, progress);
    drain(cell, engine, *sender);
    engine.stop();
    control.send(report_message(meter.report(engine)));
  } catch (const RunFailure& e) {
    failure = e.what();
  }
  engine.stop();
  SideReport receiver = meter.report(engine);
  RunResult r = combine(cell, sender ? &*sender : nullptr, &receiver, meter.master_mpct());
  if (failure.empty() && !receiver.failure.empty()) failure = "receiver: " + receiver.failure;
  if (failure.empty() && sender && !sender->failure.empty()) failure = "sender: " + sender->failure;
  settle(cell, r, failure);
  return r;
}

// A rate search (run/search_run.cpp): one run per trial on the same listener, each with a new
// engine and run id (traffic of an earlier trial that arrives late is foreign to the next),
// until the client says search_done. The result is that of the last trial, the verification.
RunResult serve_trials(const Cell& cell, int listener, std::unique_ptr<Engine> engine, uint32_t run_id,
                       std::ostream& out) {
  std::optional<RunResult> last;
  Cell waiting = cell;  // between trials the client is back within its settle time
  for (uint32_t trial = 0;; ++trial) {
    if (trial > 0) waiting.accept_timeout_ms = static_cast<uint32_t>(cell.search->settle_ms + cell.connect_timeout_ms + 30'000);
    ControlChannel control = accept_client(waiting, listener);
    auto message = control.poll(Millis(cell.connect_timeout_ms));
    if (!message) throw RunFailure("search trial " + std::to_string(trial) + ": the client sent no hello");
    if ((*message)["type"] == "search_done") break;
    if ((*message)["type"] == "refused")
      throw BadInput("the client refused the cell: " + message->value("reason", std::string()));
    if ((*message)["type"] != "hello") throw RunFailure("control connection: expected a hello or search_done");
    if (!engine) {
      run_id = new_run_id();
      engine = make_engine(cell, Direction::receive, run_id);
      engine->open();
    }
    last = serve_run(cell, *message, control, *engine, run_id, out);
    engine.reset();  // closes its sockets before the next trial binds them again
    if (last->state == RunState::failed) return *last;
  }
  if (!last) throw RunFailure("the client ended the search before any trial");
  return *last;
}

}  // namespace

RunResult run_server(const Cell& cell, std::ostream& out, const std::function<void()>& on_ready) {
  require_cores_available(cell.cores.rx, "cores.rx");
  const uint32_t run_id = new_run_id();
  auto engine = make_engine(cell, Direction::receive, run_id);
  engine->open();
  Fd listener = tcp_listen(ipv4_address(cell.bind_address, cell.control_port));
  announce_ready(cell, out);
  on_ready();
  if (cell.search) return serve_trials(cell, listener.get(), std::move(engine), run_id, out);

  ControlChannel control = accept_client(cell, listener.get());
  listener.reset();  // one client per run
  auto hello = control.expect("hello", Millis(cell.connect_timeout_ms));
  return serve_run(cell, hello, control, *engine, run_id, out);
}

}  // namespace spiral
