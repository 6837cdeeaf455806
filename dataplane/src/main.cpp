// spiral-dataplane: the edge. Parses and validates input once, runs the role, writes the
// outputs and maps the outcome to an exit code: 0 completed (Valid or Invalid), 1 run failure,
// 2 bad input.
#include <iostream>

#include "app/cli.hpp"
#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "config/cell_parse.hpp"
#include "output/summary.hpp"
#include "run/outcome.hpp"
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
    case spiral::Role::loopback: return spiral::run_loopback(cell);
    case spiral::Role::rank: return spiral::run_ranks(cell);
  }
  throw spiral::RunFailure("unknown role");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spiral;
  remember_startup_affinity();
  install_signal_handlers();

  Cell cell;
  try {
    auto description = parse_command_line(argc, argv, std::cout);
    if (!description) return 0;  // --help or --version
    cell = parse_cell(*description);
    require_cores_available({cell.cores.master}, "cores.master");
  } catch (const BadInput& e) {
    std::cerr << "spiral-dataplane: " << e.what() << "\n";
    return kExitBadInput;
  }

  try {
    pin_current_thread(cell.cores.master);
    RunResult r = run_role(cell);
    if (r.state == RunState::failed) std::cerr << "spiral-dataplane: run failed: " << r.reason << "\n";
    const bool written = emit_outputs(cell, r, std::cout);
    return r.state == RunState::failed || !written ? kExitFailure : 0;
  } catch (const BadInput& e) {
    std::cerr << "spiral-dataplane: " << e.what() << "\n";
    write_summary(cell, failed_result(cell, std::string("bad input: ") + e.what()));
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "spiral-dataplane: run failed: " << e.what() << "\n";
    emit_outputs(cell, failed_result(cell, e.what()), std::cout);
    return kExitFailure;
  }
}
