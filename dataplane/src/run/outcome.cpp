#include "run/outcome.hpp"

#include "metrics/verdict.hpp"
#include "output/csv_row.hpp"
#include "output/environment_json.hpp"
#include "output/environment_message.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"

namespace spiral {

void settle(const Cell& cell, RunResult& r, const std::string& failure) {
  if (!failure.empty()) {
    r.state = RunState::failed;
    r.reason = failure;
    return;
  }
  Verdict v = judge(cell, r);
  r.state = v.state;
  r.reason = v.reason;
}

RunResult failed_result(const Cell& cell, const std::string& reason) {
  RunResult r;
  r.pairs.resize(cell.pairs);
  r.drops_kind = cell.kind->drops_kind;  // as the kind's accounting names them
  r.state = RunState::failed;
  r.reason = reason;
  return r;
}

bool emit_outputs(const Cell& cell, const RunResult& measured, std::ostream& out, uint32_t repeat_index) {
  // The environment once, on the first repeat, for the record and the summary alike.
  const bool capture = cell.environment && repeat_index == 0;
  RunResult captured;
  if (capture) {
    captured = measured;
    captured.environment = environment_json(side_netdevs(cell, measured));
  }
  const RunResult& r = capture ? captured : measured;
  out << result_record(cell, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (cell.csv) out << csv_header() << "\n" << csv_row(cell, r) << "\n";
  out.flush();
  bool csv_ok = append_csv(cell, r);
  bool summary_ok = write_summary(cell, r, repeat_index);
  bool env_ok = !capture || cell.environment_file.empty() ||
                write_environment_file(cell.environment_file, compact_environment(captured.environment));
  return csv_ok && summary_ok && env_ok;
}

}  // namespace spiral
