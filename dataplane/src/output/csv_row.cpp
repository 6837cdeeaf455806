#include "output/csv_row.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace spiral {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Busy milli-percent as DAQIRI's percent column; empty when unknown.
std::string percent(int64_t mpct) { return mpct < 0 ? "" : fixed(double(mpct) / 1000.0, 1); }

std::string label_or(const Cell& cell, const std::string& key, const std::string& fallback) {
  auto it = cell.labels.find(key);
  return it == cell.labels.end() ? fallback : it->second;
}

}  // namespace

std::string csv_header() {
  return "lang,backend,post_process,payload,batch,pairs,target_gbps,rep,seconds,packets,bytes,pps,gbps,rx_gbps,"
         "drops,drops_kind,cpu_master_pct,cpu_tx_pct,cpu_rx_pct,gpu_sm_pct,gpu_mem_pct,post_process_gemm_dim,"
         "post_process_sync";
}

std::string csv_row(const Cell& cell, const RunResult& r) {
  std::string rep = label_or(cell, "repeat", "1");
  if (rep.find_first_of(",\"\n") != std::string::npos) rep = "";  // never break the row
  const bool gemm = cell.workload == Workload::gemm || cell.workload == Workload::gemm_fp16;
  const std::string cols[] = {
      "cpp",
      cell.kind->backend,  // DAQIRI's backend column: how the bytes moved
      to_string(cell.workload),
      std::to_string(cell.payload_bytes),
      std::to_string(cell.batch),
      std::to_string(cell.pairs),
      fixed(double(cell.target_mbps) / 1000.0, 3),
      rep,
      fixed(double(r.seconds_milli) / 1000.0, 3),
      std::to_string(r.rx_packets),
      std::to_string(r.rx_bytes),
      std::to_string(r.pps),
      fixed(r.tx_gbps, 3),
      fixed(r.rx_gbps, 3),
      std::to_string(r.drops),
      r.drops_kind,
      percent(r.cpu_master_mpct),
      percent(r.cpu_tx_mpct),
      percent(r.cpu_rx_mpct),
      percent(r.gpu.sm_mpct),
      percent(r.gpu.mem_mpct),
      gemm ? std::to_string(cell.gemm_n) : "",  // as the operator's report: GEMM kinds only
      cell.workload != Workload::none ? std::to_string(cell.sync_interval) : "",
  };
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
