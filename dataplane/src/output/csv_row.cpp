#include "output/csv_row.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "engine/latency_histogram.hpp"
#include "kinds/bench_kind.hpp"

namespace spiral {

namespace {

// The column names, in order, from the one definition the operator's writer follows too.
constexpr const char* kColumns[] = {
#define SPIRAL_CSV_COLUMN(name, daqiri, meaning) #name,
#include "output/runs_csv_columns.def"
#undef SPIRAL_CSV_COLUMN
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// DAQIRI's target_gbps is each pair's target, an integer (10, 0); the cell's target_mbps is all
// pairs' together. A target that is not whole Gb/s keeps up to three decimals.
std::string target_gbps(uint64_t mbps, uint32_t pairs) {
  std::string s = fixed(double(mbps) / double(pairs ? pairs : 1) / 1000.0, 3);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string label_or(const Cell& cell, const std::string& key, const std::string& fallback) {
  auto it = cell.labels.find(key);
  std::string v = it == cell.labels.end() ? fallback : it->second;
  return v.find_first_of(",\"\n") == std::string::npos ? v : "";  // never break the row
}

}  // namespace

std::string csv_header() {
  std::string h = kColumns[0];
  for (size_t i = 1; i < std::size(kColumns); ++i) h += std::string(",") + kColumns[i];
  return h;
}

std::string csv_row(const Cell& cell, const RunResult& r) {
  const BenchKind& k = *cell.kind;
  // DAQIRI counts sender totals, or the receiver's for its dpdk backend.
  const uint64_t packets = k.daqiri_counts_receiver ? r.rx_packets : r.tx_packets;
  const uint64_t bytes = k.daqiri_counts_receiver ? r.rx_bytes : r.tx_bytes;
  const double secs = double(r.seconds_milli) / 1000.0;
  const double gbps = k.daqiri_counts_receiver ? r.rx_gbps : r.tx_gbps;
  const LatencySummary* lat = k.latency ? k.latency(cell, r) : nullptr;
  std::string unknown;
  auto percent = [&](int64_t mpct, const char* column) {
    if (mpct >= 0) return fixed(double(mpct) / 1000.0, 1);
    if (!unknown.empty()) unknown += ';';
    unknown += column;
    return std::string("0");  // DAQIRI writes 0 where it measured nothing
  };
  const std::string cols[] = {
      "cpp",
      k.backend,
      to_string(cell.workload),
      std::to_string(cell.payload_bytes),
      std::to_string(cell.batch),
      std::to_string(cell.pairs),
      target_gbps(cell.target_mbps, cell.pairs),
      label_or(cell, "repeat", "1"),
      fixed(secs, 3),
      std::to_string(packets),
      std::to_string(bytes),
      secs > 0 ? fixed(double(packets) / secs, 0) : "0",
      fixed(gbps, 3),
      fixed(r.rx_gbps, 3),
      std::to_string(r.drops),
      r.drops_kind,
      percent(r.cpu_master_mpct, "cpu_master_pct"),
      percent(r.cpu_tx_mpct, "cpu_tx_pct"),
      percent(r.cpu_rx_mpct, "cpu_rx_pct"),
      percent(r.gpu.sm_mpct, "gpu_sm_pct"),
      percent(r.gpu.mem_mpct, "gpu_mem_pct"),
      std::to_string(cell.gemm_n),
      cell.sync_interval_given ? std::to_string(cell.sync_interval) : "default",
      // SpiralBench's own columns; labels named like a column fill the operator's coordinates.
      label_or(cell, "cell", ""),
      label_or(cell, "headline", ""),
      to_string(r.state),
      label_or(cell, "attempt", ""),
      label_or(cell, "tx_queues", ""),
      label_or(cell, "rx_queues", ""),
      std::to_string(r.loss_ppm),
      std::to_string(r.tx_packets),
      std::to_string(r.tx_bytes),
      std::to_string(r.rx_packets),
      std::to_string(r.rx_bytes),
      k.sequenced ? std::to_string(r.lost) : "",
      k.socket_retrans ? std::to_string(r.retrans) : "",
      r.wire,
      std::to_string(phy_total(r.wire_checks, true)),
      std::to_string(phy_total(r.wire_checks, false)),
      std::to_string(std::max<size_t>(r.links.size(), 1)),
      lat ? std::to_string(lat->min_ns) : "",
      lat ? std::to_string(lat->p50_ns) : "",
      lat ? std::to_string(lat->p99_ns) : "",
      lat ? std::to_string(lat->p999_ns) : "",
      lat ? std::to_string(lat->max_ns) : "",
      unknown,
      r.search ? std::to_string(r.search->ndr_mbps.value_or(0)) : "",
      r.search && r.search->pdr_ppm ? std::to_string(r.search->pdr_mbps.value_or(0)) : "",
  };
  static_assert(std::size(cols) == std::size(kColumns), "one value per column of runs_csv_columns.def");
  std::string row = cols[0];
  for (size_t i = 1; i < std::size(cols); ++i) row += "," + cols[i];
  return row;
}

bool append_csv(const Cell& cell, const RunResult& r) {
  if (cell.csv_file.empty()) return true;
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(cell.csv_file, ec) || std::filesystem::file_size(cell.csv_file, ec) == 0;
  std::ofstream out(cell.csv_file, std::ios::app);
  if (fresh) out << csv_header() << "\n";
  out << csv_row(cell, r) << "\n";
  out.close();
  if (!out) {
    std::cerr << "spiral-dataplane: cannot append to csv_file \"" << cell.csv_file << "\"\n";
    return false;
  }
  return true;
}

}  // namespace spiral
