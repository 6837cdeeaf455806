#include "transports/nccl/cell_rank.hpp"

#include <string>

#include "transports/nccl/nccl_options.hpp"
#include "transports/nccl/nccl_rank.hpp"
#include "transports/nccl/summary_part.hpp"

namespace spiral::nccl {

namespace {

// The same on every pod of the attempt, so a rank of another cell (or a retry) is refused.
std::string cell_id(const Cell& c) {
  std::string id;
  for (const char* key : {"bench", "cell", "repeat", "attempt"}) {
    auto it = c.labels.find(key);
    if (it != c.labels.end()) id += (id.empty() ? "" : "/") + it->second;
  }
  return id.empty() ? "nccl" : id;
}

std::string check_failures(const std::vector<SizeRow>& rows) {
  int64_t wrong = 0;
  std::string first;
  for (const auto& r : rows) {
    if (r.wrong <= 0) continue;
    wrong += r.wrong;
    if (first.empty()) first = std::to_string(r.bytes) + " B " + (r.in_place ? "in place" : "out of place");
  }
  return wrong ? "check: " + std::to_string(wrong) + " wrong elements (first at " + first + ")" : "";
}

}  // namespace

nlohmann::json run_cell_rank(const Cell& c, uint32_t local, void (*listening)(const Cell& c)) {
  const NcclOptions& o = nccl_options(c);
  RankRun run;
  run.cell = cell_id(c);
  run.spec = o.spec;
  run.place = {o.first_rank + static_cast<int>(local), o.nranks, static_cast<int>(local)};
  // ranks of the first pod reach rank 0 on this host; the other pods at the server address
  run.root_host = o.first_rank == 0 ? (c.bind_address == "0.0.0.0" ? "127.0.0.1" : c.bind_address) : c.server_address;
  run.port = c.control_port;
  run.bind_address = c.bind_address;
  run.bootstrap_timeout = Millis(o.bootstrap_timeout_ms);
  run.network = network_choice(o);
  run.nccl_tests_json = o.nccl_tests_json;
  if (listening) run.on_listening = [&c, listening] { listening(c); };
  const RankOutcome out = run_rank(run);
  nlohmann::json outcome = {{"state", "Valid"}, {"reason", ""}};
  if (run.place.rank != 0) return outcome;  // rank 0 reports the cell
  std::string why = out.invalid_reason;
  if (why.empty()) why = check_failures(out.rows);
  if (!why.empty()) outcome = {{"state", "Invalid"}, {"reason", why}};
  outcome["figures"] = summary_part(o.spec.collective, o.nranks, out.rows, out.transports);
  return outcome;
}

}  // namespace spiral::nccl
