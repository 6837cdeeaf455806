#include "run/outcome.hpp"

#include "metrics/verdict.hpp"
#include "output/csv_row.hpp"
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

bool emit_outputs(const Cell& cell, const RunResult& r, std::ostream& out, uint32_t repeat_index) {
  out << result_record(cell, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (cell.csv) out << csv_header() << "\n" << csv_row(cell, r) << "\n";
  out.flush();
  bool csv_ok = append_csv(cell, r);
  bool summary_ok = write_summary(cell, r, repeat_index);
  return csv_ok && summary_ok;
}

}  // namespace spiral
