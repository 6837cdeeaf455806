// The raw loopback run: both ports in one process, no control connection. The master thread
// only moves the phase, samples CPU and port counters, and waits.
#include "transports/raw/raw_loopback.hpp"

#include <execinfo.h>

#include <csignal>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/errors.hpp"
#include "app/signals.hpp"
#include "metrics/cpu_stat.hpp"
#include "output/ready.hpp"
#include "run/outcome.hpp"
#include "sys/affinity.hpp"
#include "sys/clock.hpp"
#include "transports/raw/dpdk_env.hpp"
#include "transports/raw/raw_receiver.hpp"
#include "transports/raw/raw_result.hpp"
#include "transports/raw/raw_sender.hpp"

namespace spiral::raw {

namespace {

// DPDK's virtual drivers have rare crashes of their own (memif's control thread was seen to
// segfault at a disconnect): say where, then die as before, so a rare failure leaves a trace.
void report_crash(int sig) {
  static const char head[] = "spiral-dataplane: fatal signal in the raw transport; stack:\n";
  [[maybe_unused]] auto n = ::write(2, head, sizeof head - 1);
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

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

// Every distinct pinned core of the run with its role, for /proc/stat sampling.
std::vector<CoreBusy> run_cores(const Cell& cell) {
  std::vector<CoreBusy> cores;
  if (cell.cores.master >= 0) cores.push_back({cell.cores.master, "master", -1});
  auto add = [&](const std::vector<int>& list, uint32_t queues, const char* role) {
    std::set<int> seen;
    for (uint32_t q = 0; q < queues; ++q) {
      const int core = CoreMap::for_queue(list, q);
      if (core >= 0 && seen.insert(core).second) cores.push_back({core, role, -1});
    }
  };
  add(cell.cores.tx, cell.raw.tx_queues, "tx");
  add(cell.cores.rx, cell.raw.rx_queues, "rx");
  add(cell.cores.tx_workers, cell.raw.tx_queues, "tx_worker");
  add(cell.cores.rx_workers, cell.raw.rx_queues, "rx_worker");
  return cores;
}

}  // namespace

RunResult run_loopback(const Cell& cell) {
  require_cores_available(cell.cores.tx, "cores.tx");
  require_cores_available(cell.cores.rx, "cores.rx");
  require_cores_available(cell.cores.tx_workers, "cores.tx_workers");
  require_cores_available(cell.cores.rx_workers, "cores.rx_workers");
  const uint32_t run_id = std::random_device{}();
  std::signal(SIGSEGV, report_crash);
  std::signal(SIGBUS, report_crash);

  DpdkEnvironment env(cell);
  RawSender tx(cell, env, run_id);
  RawReceiver rx(cell, env, run_id);
  tx.open();
  rx.open();
  env.start_ports(Millis(cell.connect_timeout_ms));
  // Ready = both links up, every buffer allocated: traffic starts now.
  if (!cell.ready_file.empty())
    write_ready_file(cell.ready_file, nlohmann::json{{"event", "ready"},
                                                     {"transport", "raw"},
                                                     {"tx_port", cell.raw.tx_port},
                                                     {"rx_port", cell.raw.rx_port},
                                                     {"tx_queues", cell.raw.tx_queues},
                                                     {"rx_queues", cell.raw.rx_queues},
                                                     {"pid", ::getpid()}}
                                          .dump());

  RawMeasurement m;
  m.cores = run_cores(cell);
  std::optional<PortSnapshot> before, after;
  CpuSample cpu_before, cpu_after;
  std::string failure;
  try {
    rx.start();
    tx.start();
    wait_until(Clock::now() + Millis(cell.warmup_ms), tx, rx, [] { return false; });
    before = env.snapshot();
    cpu_before = read_proc_stat();
    const auto window_start = Clock::now();
    tx.set_phase(Phase::measure);
    rx.set_phase(Phase::measure);
    wait_until(window_start + Millis(cell.duration_ms), tx, rx, [] { return false; });
    tx.set_phase(Phase::drain);
    m.window_ms = millis_between(window_start, Clock::now());
    cpu_after = read_proc_stat();
    // The sender's threads return by themselves once their last burst is out.
    wait_until(Clock::now() + Millis(2000), tx, rx, [&] { return tx.finished(); });
    tx.stop();
    rx.set_phase(Phase::drain);
    const uint64_t sent = measured(tx.counters());
    wait_until(Clock::now() + Millis(cell.grace_ms), tx, rx, [&] { return measured(rx.counters()) >= sent; });
    rx.stop();
    after = env.snapshot();
    check(tx, rx);
  } catch (const RunFailure& e) {
    failure = e.what();
  }
  tx.stop();
  rx.stop();
  m.tx = tx.counters();
  m.rx = rx.counters();
  m.rx_streams = rx.stream_stats();
  if (before && after) m.ports = deltas(*before, *after);
  for (CoreBusy& c : m.cores) {
    c.busy_mpct = m.window_ms ? busy_mpct(cpu_before, cpu_after, c.core) : -1;
    if (c.role == "master") m.master_mpct = c.busy_mpct;
  }
  RunResult r = combine_raw(cell, m);
  env.describe(r.raw);
  settle(cell, r, failure);
  return r;
}

}  // namespace spiral::raw
