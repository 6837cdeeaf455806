#include "transports/nccl/sweep_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sys/errors.hpp"
#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"

namespace spiral::nccl {

namespace {

// Per-iteration times travel as whole nanoseconds: far finer than CUDA events' resolution (about
// half a microsecond), a third of the bytes of a double's text.
nlohmann::json iter_ns(const std::vector<double>& us) {
  auto out = nlohmann::json::array();
  for (double t : us) out.push_back(std::llround(t * 1e3));
  return out;
}

std::vector<double> iter_us(const nlohmann::json& row) {
  std::vector<double> out;
  if (const auto it = row.find("iter_ns"); it != row.end())
    for (const auto& t : *it) out.push_back(t.get<int64_t>() * 1e-3);
  return out;
}

}  // namespace

nlohmann::json to_json(const std::vector<SizeRow>& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({{"bytes", r.bytes},
                   {"count", r.count},
                   {"in_place", r.in_place},
                   {"time_us", r.time_us},
                   {"algbw_gbps", r.algbw_gbps},
                   {"busbw_gbps", r.busbw_gbps},
                   {"wrong", r.wrong},
                   {"gpu_time_us", r.gpu_time_us},
                   {"p50_us", r.p50_us},
                   {"p99_us", r.p99_us},
                   {"slowest_rank", r.slowest_rank},
                   {"slowest_time_us", r.slowest_time_us},
                   {"iter_ns", iter_ns(r.iter_us)}});
  return out;
}

std::vector<SizeRow> rows_from_json(const nlohmann::json& j) {
  if (!j.is_array()) throw RunFailure("NCCL report: rows are not a list");
  std::vector<SizeRow> rows;
  try {
    for (const auto& r : j)
      rows.push_back({r.at("bytes").get<uint64_t>(), r.at("count").get<uint64_t>(), r.at("in_place").get<bool>(),
                      r.at("time_us").get<double>(), r.at("algbw_gbps").get<double>(),
                      r.at("busbw_gbps").get<double>(), r.at("wrong").get<int64_t>(),
                      r.at("gpu_time_us").get<double>(), r.value("p50_us", 0.0), r.value("p99_us", 0.0),
                      r.value("slowest_rank", 0), r.value("slowest_time_us", 0.0), iter_us(r)});
  } catch (const nlohmann::json::exception& e) {
    throw RunFailure(std::string("NCCL report: malformed row: ") + e.what());
  }
  return rows;
}

IterationStats iteration_stats(std::vector<double> times_us) {
  if (times_us.empty()) return {};
  std::sort(times_us.begin(), times_us.end());
  const size_t n = times_us.size();
  const size_t p99 = std::min(n - 1, (n * 99 + 99) / 100 - 1);
  return {times_us[n / 2], times_us[p99]};
}

std::vector<SizeRow> merge_ranks(const std::vector<std::vector<SizeRow>>& rows, const SweepSpec& spec) {
  if (rows.empty()) return {};
  const int nranks = static_cast<int>(rows.size());
  // split: every group ran the operation among its own ranks (groups are one size: split_refusal)
  const int group = spec.split.active() ? split_places(spec.split, nranks)[0].nranks : nranks;
  const auto& coll = info(spec.collective);
  const size_t element = info(spec.type).bytes;
  std::vector<SizeRow> merged = rows[0];
  for (size_t i = 0; i < merged.size(); ++i) {
    double sum_us = 0, sum_gpu_us = 0, p50 = 0, p99 = 0;
    int64_t wrong = 0;
    bool checked = false;
    int slowest = 0;
    for (int r = 0; r < nranks; ++r) {
      if (rows[r].size() != merged.size() || rows[r][i].bytes != merged[i].bytes ||
          rows[r][i].in_place != merged[i].in_place)
        throw RunFailure("NCCL report: rank " + std::to_string(r) + " measured other sizes than rank 0");
      sum_us += rows[r][i].time_us;
      sum_gpu_us += rows[r][i].gpu_time_us;
      p50 = std::max(p50, rows[r][i].p50_us);
      p99 = std::max(p99, rows[r][i].p99_us);
      if (rows[r][i].time_us > rows[slowest][i].time_us) slowest = r;
      if (rows[r][i].wrong >= 0) {
        checked = true;
        wrong += rows[r][i].wrong;
      }
    }
    SizeRow& m = merged[i];
    // nccl-tests' times_us: every iteration's largest time over the ranks (as far as all kept it)
    size_t kept = m.iter_us.size();
    for (int r = 1; r < nranks; ++r) kept = std::min(kept, rows[r][i].iter_us.size());
    m.iter_us.resize(kept);
    for (int r = 1; r < nranks; ++r)
      for (size_t k = 0; k < kept; ++k) m.iter_us[k] = std::max(m.iter_us[k], rows[r][i].iter_us[k]);
    m.time_us = sum_us / nranks;
    m.gpu_time_us = sum_gpu_us / nranks;
    const Bandwidth bw = bandwidth(coll, m.count, element, m.time_us * 1e-6, group, m.bytes);
    m.algbw_gbps = bw.algbw_gbps;
    m.busbw_gbps = bw.busbw_gbps;
    m.wrong = checked ? wrong : -1;
    m.p50_us = p50;
    m.p99_us = p99;
    m.slowest_rank = slowest;
    m.slowest_time_us = rows[slowest][i].time_us;
  }
  return merged;
}

std::string format_table(const std::vector<SizeRow>& rows, const SweepSpec& spec) {
  const auto& coll = info(spec.collective);
  const std::string type(info(spec.type).name);
  const std::string redop = coll.reduces ? std::string(name(spec.op)) : "none";
  const int root = coll.rooted ? spec.root : -1;
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "#%12s %12s %8s %6s %6s   %9s %8s %8s %6s   %9s %8s %8s %6s\n", "size", "count",
                "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += line;
  std::snprintf(line, sizeof line, "#%12s %12s %8s %6s %6s   %9s %8s %8s %6s   %9s %8s %8s %6s\n", "(B)",
                "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out += line;
  std::map<uint64_t, std::pair<const SizeRow*, const SizeRow*>> by_size;  // out of place, in place
  std::vector<uint64_t> order;
  for (const auto& r : rows) {
    auto [it, fresh] = by_size.try_emplace(r.bytes);
    if (fresh) order.push_back(r.bytes);
    (r.in_place ? it->second.second : it->second.first) = &r;
  }
  auto half = [](const SizeRow* r) {
    char cell[64];
    if (!r) return std::string("   N/A      N/A      N/A    N/A");
    const std::string wrong = r->wrong < 0 ? "N/A" : std::to_string(r->wrong);
    std::snprintf(cell, sizeof cell, "%9.2f %8.2f %8.2f %6s", r->time_us, r->algbw_gbps, r->busbw_gbps, wrong.c_str());
    return std::string(cell);
  };
  for (uint64_t bytes : order) {
    const auto [oop, ip] = by_size[bytes];
    const SizeRow* any = oop ? oop : ip;
    std::snprintf(line, sizeof line, " %12llu %12llu %8s %6s %6d   %s   %s\n", static_cast<unsigned long long>(bytes),
                  static_cast<unsigned long long>(any->count), type.c_str(), redop.c_str(), root, half(oop).c_str(),
                  half(ip).c_str());
    out += line;
  }
  return out;
}

bool check_passed(const std::vector<SizeRow>& rows) {
  for (const auto& r : rows)
    if (r.wrong > 0) return false;
  return true;
}

}  // namespace spiral::nccl
