// spiral-dataplane: the edge. Parses and validates input once, runs the role (once per repeat
// of the cell), writes the outputs and maps the outcome to an exit code: 0 completed (Valid or
// Invalid), 1 run failure, 2 bad input.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>

#include "app/cli.hpp"
#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "config/cell_parse.hpp"
#include "output/environment_message.hpp"
#include "output/summary.hpp"
#include "run/outcome.hpp"
#include "control/rendezvous.hpp"
#include "run/roles.hpp"
#include "sys/affinity.hpp"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

spiral::RunResult run_role(const spiral::Cell& cell) {
  switch (cell.role) {
    case spiral::Role::server: return spiral::run_server(cell, std::cout);
    case spiral::Role::client:
      return cell.search ? spiral::run_search_client(cell, &std::cout) : spiral::run_client(cell, &std::cout);
    case spiral::Role::loopback: return spiral::run_loopback(cell, &std::cout);
    case spiral::Role::rank: return spiral::run_ranks(cell);
  }
  throw spiral::RunFailure("unknown role");
}

// Repeat `index` of the cell: its "repeat" label (the operator's first repeat of this process)
// counts on, so each record names its own repeat.
spiral::Cell nth_repeat(const spiral::Cell& cell, uint32_t index) {
  spiral::Cell one = cell;
  // The client reconnects as soon as its previous repeat is written: a server left waiting a
  // minute has lost it, and ends (with the finished repeats in its summary) rather than hang.
  if (index > 0) one.accept_timeout_ms = std::min<uint32_t>(one.accept_timeout_ms, 60'000);
  auto it = one.labels.find("repeat");
  if (index > 0 && it != one.labels.end()) {
    try {
      it->second = std::to_string(std::stoll(it->second) + index);
    } catch (const std::exception&) {
      it->second += "+" + std::to_string(index);  // an opaque label: say which run it was
    }
  }
  return one;
}

// A run that failed before it had a result: the reason on stderr and as the summary's line `index`.
int run_failed(const spiral::Cell& cell, const std::string& reason, uint32_t index) {
  std::cerr << "spiral-dataplane: run failed: " << reason << "\n";
  spiral::emit_outputs(cell, spiral::failed_result(cell, reason), std::cout, index);
  return kExitFailure;
}

// One run and its outputs; the summary's line `index`. A failed run ends the repeats.
int run_once(const spiral::Cell& cell, uint32_t index) {
  using namespace spiral;
  try {
    pin_current_thread(cell.cores.master);
    RunResult r = run_role(cell);
    if (r.state == RunState::failed) std::cerr << "spiral-dataplane: run failed: " << r.reason << "\n";
    const bool written = emit_outputs(cell, r, std::cout, index);
    return r.state == RunState::failed || !written ? kExitFailure : 0;
  } catch (const BadInput& e) {
    std::cerr << "spiral-dataplane: " << e.what() << "\n";
    write_summary(cell, failed_result(cell, std::string("bad input: ") + e.what()), index);
    return kExitBadInput;
  } catch (const std::exception& e) {
    return run_failed(cell, e.what(), index);
  }
}

// The relay's message once the run ends without a capture (bad input before the first repeat
// wrote one): the relay waits for the file, and without it would hold the pod to its deadline.
int ended(const spiral::Cell& cell, int code) {
  std::ifstream written(cell.environment_file);
  if (cell.environment && !cell.environment_file.empty() && !written)
    spiral::write_environment_file(cell.environment_file, nullptr,
                                   "not captured: the data plane ended with exit code " + std::to_string(code) +
                                       " before its first repeat's outputs");
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spiral;
  // The operator's relay container (environment_message.hpp): the same binary, no cell.
  if (argc == 4 && std::string(argv[1]) == "relay-environment") return relay_environment(argv[2], argv[3]);
  // A fleet's facts pod between rounds: the capture alone, no cell.
  if (argc == 3 && std::string(argv[1]) == "capture-environment") return capture_environment(argv[2]);
  remember_startup_affinity();
  install_signal_handlers();

  Cell cell;
  try {
    auto description = parse_command_line(argc, argv, std::cout);
    if (!description) return 0;  // --help, --version, --describe-kinds or --check-args
    cell = parse_cell(*description);
    require_cores_available({cell.cores.master}, "cores.master");
  } catch (const BadInput& e) {
    std::cerr << "spiral-dataplane: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    resolve_rendezvous(cell);  // the other ranks: rank 0's address, once it announced it
  } catch (const std::exception& e) {
    return ended(cell, run_failed(cell, e.what(), 0));
  }

  // Each repeat reconnects on the control connection (the client retries while the server
  // listens again), so no settle time is needed between them.
  for (uint32_t i = 0; i < cell.repeats; ++i)
    if (int code = run_once(nth_repeat(cell, i), i); code != 0) return ended(cell, code);
  return ended(cell, 0);
}
