// The in-process run (BenchKind::run_mode in_process, role loopback): one process drives the
// kind's sender and receiver engines, no control channel. Same phases as the two-sided run:
// warm-up, measured window, drain, settle; the master thread only moves the phase, samples the
// CPU and waits.
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "metrics/side_report.hpp"
#include "output/progress.hpp"
#include "output/ready.hpp"
#include "run/outcome.hpp"
#include "run/roles.hpp"
#include "run/side_meter.hpp"
#include "sys/affinity.hpp"
#include "sys/errors.hpp"
#include "sys/signals.hpp"

namespace spiral {

namespace {

void check(const Engine& tx, const Engine& rx) {
  throw_if_signalled();
  if (auto f = tx.failure()) throw RunFailure("sender: " + *f);
  if (auto f = rx.failure()) throw RunFailure("receiver: " + *f);
}

// Waits until `until` or `done()`, checking for signals and worker errors every few ms.
template <typename Done>
void wait_until(Clock::time_point until, const Engine& tx, const Engine& rx, Done done) {
  for (;;) {
    check(tx, rx);
    if (done()) return;
    const auto now = Clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(until - now, Millis(5)));
  }
}

uint64_t measured(const std::vector<QueueCounters>& queues) {
  uint64_t n = 0;
  for (const auto& q : queues) n += q.measured().packets;
  return n;
}

void write_ready(const Cell& cell, const LocalSession& session) {
  if (cell.ready_file.empty()) return;
  nlohmann::json ready = {{"event", "ready"}, {"transport", cell.kind->name}, {"pid", ::getpid()}};
  session.ready_fields(ready);
  write_ready_file(cell.ready_file, ready.dump());
}

}  // namespace

std::unique_ptr<LocalSession> open_local_session(const Cell& cell) {
  require_cores_available(cell.cores.tx, "cores.tx");
  require_cores_available(cell.cores.rx, "cores.rx");
  for (const auto& [key, list] : cell.cores.own) require_cores_available(list, "cores." + key);
  auto session = cell.kind->make_session(cell, std::random_device{}());
  session->open();
  write_ready(cell, *session);  // ready = every buffer allocated, links up: traffic starts now
  return session;
}

RunResult run_in_process(const Cell& cell, std::ostream* progress) {
  auto session = open_local_session(cell);
  return run_local_session(cell, *session, progress);
}

RunResult run_local_session(const Cell& cell, LocalSession& session, std::ostream* progress) {
  Engine& tx = session.sender();
  Engine& rx = session.receiver();
  SideMeter meter(cell, run_cores(cell, session));
  // sbctl watch's live view: the process holds both sides, so it prints a client (TX) and a
  // server (RX) line per tick, as the two processes of a two-sided run do.
  std::optional<ProgressLine> tx_line, rx_line;
  if (progress) tx_line.emplace(*progress, /*receiving=*/false, "queue"), rx_line.emplace(*progress, /*receiving=*/true, "queue");
  const auto tick = [&] {
    const auto now = Clock::now();
    if (!rx_line || !rx_line->due(now)) return false;
    tx_line->print(now, tx.counters());
    rx_line->print(now, rx.counters());
    return false;
  };
  std::string failure;
  try {
    rx.start();
    tx.start();
    wait_until(Clock::now() + Millis(cell.warmup_ms), tx, rx, [] { return false; });
    session.window_started();
    meter.begin();
    tx.set_phase(Phase::measure);
    rx.set_phase(Phase::measure);
    if (progress) tx_line->begin(Clock::now()), rx_line->begin(Clock::now());
    wait_until(Clock::now() + Millis(cell.duration_ms), tx, rx, tick);
    tx.set_phase(Phase::drain);
    meter.end();
    session.window_ended();
    // The sender's threads return by themselves once their last burst is out.
    wait_until(Clock::now() + Millis(2000), tx, rx, [&] { return session.sender_finished(); });
    tx.stop();
    rx.set_phase(Phase::drain);
    const uint64_t sent = measured(tx.counters());
    wait_until(Clock::now() + Millis(cell.grace_ms), tx, rx, [&] { return measured(rx.counters()) >= sent; });
    rx.stop();
    session.drained();
    check(tx, rx);
  } catch (const RunFailure& e) {
    failure = e.what();
  }
  tx.stop();
  rx.stop();
  const SideReport sender = meter.report(tx);
  SideReport receiver = meter.report(rx);
  receiver.cores.clear();  // one meter for the whole run: its cores are in the sender's report
  RunResult r;
  session.account(cell, sender, receiver, r);
  r.cpu_master_mpct = meter.master_mpct();
  settle(cell, r, failure);
  return r;
}

}  // namespace spiral
