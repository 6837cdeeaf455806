// runs.csv against DAQIRI's definitions (examples/run_spark_bench.sh): a golden file per
// backend, compared column by column, and the value formats DAQIRI writes. The operator's
// writer (pkg/report) is checked against the same golden files, so the two writers agree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "output/csv_row.hpp"
#include "report_builders.hpp"

namespace spiral {
namespace {

using namespace spiral::testing;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cols;
  std::stringstream in(line);
  std::string col;
  while (std::getline(in, col, ',')) cols.push_back(col);
  if (!line.empty() && line.back() == ',') cols.push_back("");
  return cols;
}

// The golden files' run: 2 s, 3,000,000 x 8000 B sent, 2,999,000 received, master and TX core
// busy known, RX core and GPU unknown; labels as the operator passes its coordinates.
RunResult golden_result() {
  RunResult r;
  r.state = RunState::valid;
  r.seconds_milli = 2000;
  r.tx_packets = 3'000'000;
  r.tx_bytes = 24'000'000'000;
  r.rx_packets = 2'999'000;
  r.rx_bytes = 23'992'000'000;
  r.tx_gbps = 96.0;
  r.rx_gbps = 95.968;
  r.loss_ppm = 333;
  r.cpu_master_mpct = 3700;
  r.cpu_tx_mpct = 92500;
  r.cpu_rx_mpct = -1;
  r.gpu.sm_mpct = -1;
  r.gpu.mem_mpct = -1;
  return r;
}

struct Golden {
  std::string backend;
  Cell cell;
  RunResult result;
};

std::vector<Golden> goldens() {
  std::vector<Golden> g;
  {
    Cell c = udp_cell(4);
    c.payload_bytes = 8000;
    c.target_mbps = 40000;  // all 4 pairs together: DAQIRI's 10 Gb/s per pair
    c.workload = Workload::fft;
    c.sync_interval = 2;
    c.sync_interval_given = true;
    RunResult r = golden_result();
    r.drops = 7;  // /proc/net/udp drops
    r.lost = 1000;
    r.drops_kind = c.kind->drops_kind;
    g.push_back({"socket-udp", c, r});
  }
  {
    Cell c = tcp_cell(4);
    c.payload_bytes = 8000;
    RunResult r = golden_result();
    r.rx_packets = r.tx_packets;
    r.rx_bytes = r.tx_bytes;
    r.rx_gbps = r.tx_gbps;
    r.drops = 5;  // nstat RetransSegs + InErrs
    r.retrans = 3;
    r.loss_ppm = 0;
    r.drops_kind = c.kind->drops_kind;
    g.push_back({"socket-tcp", c, r});
  }
  {
    Cell c = roce_cell(RdmaOptions::Verb::send);
    c.payload_bytes = 8'000'000;
    RunResult r = golden_result();
    r.tx_packets = r.rx_packets = 3000;
    r.rx_bytes = r.tx_bytes;
    r.rx_gbps = r.tx_gbps;
    r.loss_ppm = 0;
    r.drops_kind = c.kind->drops_kind;
    g.push_back({"rdma", c, r});
  }
  {
    Cell c;
    c.kind = &kind_named("raw");
    c.role = Role::loopback;
    c.payload_bytes = 8000;
    c.batch = 10240;
    RunResult r = golden_result();
    r.drops = 600;  // imissed + ierrors + rx_nombuf
    r.lost = 1000;
    r.drops_kind = c.kind->drops_kind;
    g.push_back({"dpdk", c, r});
  }
  for (auto& x : g)
    x.cell.labels = {{"repeat", "1"}, {"cell", "0"}, {"headline", "true"}, {"attempt", "0"}, {"tx_queues", "1"}, {"rx_queues", "1"}};
  return g;
}

std::string golden_path(const std::string& backend) {
  return std::string(SPIRAL_TEST_DATA) + "/runs_csv/" + backend + ".csv";
}

// SPIRAL_UPDATE_GOLDEN=1 rewrites the files; review the diff against DAQIRI's definitions.
TEST(RunsCsv, GoldenFilePerBackendColumnByColumn) {
  for (const Golden& g : goldens()) {
    const std::string header = csv_header(), row = csv_row(g.cell, g.result);
    if (std::getenv("SPIRAL_UPDATE_GOLDEN")) std::ofstream(golden_path(g.backend)) << header << "\n" << row << "\n";
    std::ifstream in(golden_path(g.backend));
    ASSERT_TRUE(in) << golden_path(g.backend);
    std::string want_header, want_row;
    std::getline(in, want_header);
    std::getline(in, want_row);
    ASSERT_EQ(split(header), split(want_header)) << g.backend;
    const auto names = split(header), got = split(row), want = split(want_row);
    ASSERT_EQ(got.size(), names.size()) << g.backend;
    ASSERT_EQ(want.size(), names.size()) << g.backend;
    for (size_t i = 0; i < names.size(); ++i)
      EXPECT_EQ(got[i], want[i]) << g.backend << " column " << names[i];
  }
}

// What DAQIRI's script writes in each of its columns, by backend (its echo line and helpers).
TEST(RunsCsv, DaqiriColumnsCarryDaqirisValues) {
  const std::map<std::string, std::string> drops_kind = {{"dpdk", "dpdk-imissed+ierrors+nombuf"},
                                                         {"rdma", "rdma-cqe-error"},
                                                         {"socket-udp", "udp-proc-net-udp-drops"},
                                                         {"socket-tcp", "tcp-nstat-retrans+inerrs"}};
  const std::map<std::string, std::regex> format = {
      {"lang", std::regex("cpp")},
      {"post_process", std::regex("none|fft|gemm|gemm_fp16")},
      {"target_gbps", std::regex("[0-9]+")},
      {"rep", std::regex("[1-9][0-9]*")},
      {"pps", std::regex("[0-9]+")},
      {"gbps", std::regex("[0-9]+\\.[0-9]{3}")},
      {"rx_gbps", std::regex("[0-9]+\\.[0-9]{3}")},
      {"drops", std::regex("[0-9]+")},
      {"cpu_rx_pct", std::regex("0")},  // unknown: DAQIRI's 0, named in unknown
      {"gpu_sm_pct", std::regex("0")},
      {"post_process_gemm_dim", std::regex("[0-9]+")},
      {"post_process_sync", std::regex("[0-9]+|default")},
  };
  for (const Golden& g : goldens()) {
    const auto names = split(csv_header()), got = split(csv_row(g.cell, g.result));
    std::map<std::string, std::string> col;
    for (size_t i = 0; i < names.size(); ++i) col[names[i]] = got[i];
    EXPECT_EQ(col["backend"], g.backend);
    EXPECT_EQ(col["drops_kind"], drops_kind.at(g.backend));
    for (const auto& [name, re] : format) EXPECT_TRUE(std::regex_match(col[name], re)) << g.backend << " " << name << "=" << col[name];
    // Sender totals for sockets and RDMA, the receiver's "RX complete" counts for DPDK.
    const bool rx = g.backend == "dpdk";
    EXPECT_EQ(col["packets"], std::to_string(rx ? g.result.rx_packets : g.result.tx_packets)) << g.backend;
    EXPECT_EQ(col["bytes"], std::to_string(rx ? g.result.rx_bytes : g.result.tx_bytes)) << g.backend;
    EXPECT_EQ(col["unknown"], "cpu_rx_pct;gpu_sm_pct;gpu_mem_pct") << g.backend;
    EXPECT_EQ(col["post_process_gemm_dim"], "1024") << "DAQIRI writes the GEMM dimension whatever the workload";
  }
}

TEST(RunsCsv, TargetGbpsIsAnIntegerUnlessAFraction) {
  Cell c = udp_cell();
  RunResult r = golden_result();
  auto target = [&](uint64_t mbps) {
    c.target_mbps = mbps;
    return split(csv_row(c, r))[6];
  };
  EXPECT_EQ(target(0), "0");
  EXPECT_EQ(target(10000), "10");
  EXPECT_EQ(target(2500), "2.5");
  c.pairs = 3;
  EXPECT_EQ(target(30000), "10") << "each pair's target";
  EXPECT_EQ(target(10000), "3.333");
}

}  // namespace
}  // namespace spiral
