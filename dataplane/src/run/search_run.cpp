// The rate search over the run drivers: each trial is one run of the kind's driver with the
// trial's rate and window, in this process and against the same peer (the server serves trials
// until search_done, run/server.cpp); search/rate_search.cpp picks the rates. The result is the
// verification trial's run with the whole search attached.
#include <random>
#include <thread>

#include "control/channel.hpp"
#include "control/messages.hpp"
#include "run/outcome.hpp"
#include "run/roles.hpp"
#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "sys/socket.hpp"

namespace spiral {

namespace {

// One trial: the cell at offered_mbps (0: unpaced) for duration_ms; the outputs are the search's.
Cell trial_cell(const Cell& cell, uint64_t offered_mbps, uint64_t duration_ms) {
  Cell t = cell;
  t.target_mbps = offered_mbps;
  t.duration_ms = duration_ms;
  t.ready_file.clear();
  t.summary_file.clear();
  t.csv = false;
  t.csv_file.clear();
  return t;
}

TrialMeasure measure_of(const RunResult& r) {
  TrialMeasure m;
  m.failed = r.state == RunState::failed;
  m.sent = r.tx_packets;
  m.received = r.rx_packets;
  m.lost = r.lost;
  m.tx_mbps = r.tx_mbps;
  m.rx_mbps = r.rx_mbps;
  if (m.failed) {
    m.reason = r.reason;
  } else if (r.state == RunState::invalid) {
    m.counts = false;  // e.g. the sender short of the rate: this rate was not offered
    m.reason = r.reason;
  } else if (m.sent != m.received + m.lost) {
    m.counts = false;
    m.reason = "sent " + std::to_string(m.sent) + " != received " + std::to_string(m.received) + " + lost " +
               std::to_string(m.lost) + " (duplicated " + std::to_string(r.duplicated) + ")";
  }
  return m;
}

void settle_between(const Cell& cell, bool first) {
  if (first) return;
  const auto until = Clock::now() + Millis(cell.search->settle_ms);
  while (Clock::now() < until) {
    throw_if_signalled();
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), Millis(20)));
  }
}

// The result of the cell: the verification trial's run (or the last trial's), with the search.
RunResult conclude(std::vector<RunResult>& runs, SearchOutcome outcome) {
  RunResult r = outcome.verify_trial && *outcome.verify_trial < runs.size() ? runs[*outcome.verify_trial] : runs.back();
  if (!outcome.failure.empty()) {
    r.state = RunState::failed;
    r.reason = "rate search: " + outcome.failure;
  } else if (outcome.verify_trial && !outcome.verified && r.state == RunState::valid) {
    const Trial& v = outcome.trials[*outcome.verify_trial];
    r.state = RunState::invalid;
    r.reason = "verification at the NDR " + std::to_string(v.offered_mbps) + " Mb/s lost " +
               std::to_string(v.measure.lost) + " of " + std::to_string(v.measure.sent) + " (" +
               std::to_string(v.loss_ppm) + " ppm)";
  }
  r.search = std::move(outcome);
  return r;
}

// Tells the server the search is over, on a connection of its own. A server that stopped at a
// failed trial is not listening any more: that is no error of the search's.
void send_search_done(const Cell& cell) {
  try {
    const auto deadline = Clock::now() + Millis(std::min<uint32_t>(cell.connect_timeout_ms, 3000));
    ControlChannel control(tcp_connect_until(resolve_ipv4_until(cell.server_address, cell.control_port, deadline), deadline));
    control.send(search_done_message());
  } catch (const std::exception&) {
  }
}

}  // namespace

RunResult run_search_client(const Cell& cell, std::ostream* progress) {
  std::vector<RunResult> runs;
  const TrialRunner trial = [&](uint64_t offered, uint64_t duration_ms, TrialPurpose) {
    settle_between(cell, runs.empty());
    runs.push_back(run_client(trial_cell(cell, offered, duration_ms), progress));
    return measure_of(runs.back());
  };
  SearchOutcome outcome = search_rate(*cell.search, cell.duration_ms, trial);
  send_search_done(cell);
  if (runs.empty()) throw RunFailure("rate search ran no trial");
  return conclude(runs, std::move(outcome));
}

}  // namespace spiral

namespace spiral {

RunResult run_search_in_process(const Cell& cell) {
  auto session = open_local_session(cell);
  std::vector<RunResult> runs;
  std::random_device entropy;
  const TrialRunner trial = [&](uint64_t offered, uint64_t duration_ms, TrialPurpose) {
    settle_between(cell, runs.empty());
    const Cell t = trial_cell(cell, offered, duration_ms);
    session->renew(t, entropy());  // new engines at the trial's rate; frames of the last trial are foreign
    runs.push_back(run_local_session(t, *session));
    return measure_of(runs.back());
  };
  SearchOutcome outcome = search_rate(*cell.search, cell.duration_ms, trial);
  if (runs.empty()) throw RunFailure("rate search ran no trial");
  return conclude(runs, std::move(outcome));
}

}  // namespace spiral
