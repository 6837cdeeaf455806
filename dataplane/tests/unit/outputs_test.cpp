#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "output/csv_row.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"
#include "report_builders.hpp"
#include "run/outcome.hpp"

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

RunResult sample_result(const Cell& cell) {
  SideReport tx = side({udp_sent(0, 1999)}, 2000), rx = side({udp_received(0, 1999, 1990)});
  tx.cores = {{2, "tx", 92500}};
  RunResult r = combine(cell, &tx, &rx, 3700);
  r.state = RunState::valid;
  return r;
}

TEST(Csv, HeaderStartsWithDaqirisColumns) {
  // DAQIRI's columns in its order (examples/run_spark_bench.sh), then SpiralBench's own.
  const std::vector<std::string> daqiri = {
      "lang", "backend", "post_process", "payload", "batch", "pairs", "target_gbps", "rep", "seconds", "packets",
      "bytes", "pps", "gbps", "rx_gbps", "drops", "drops_kind", "cpu_master_pct", "cpu_tx_pct", "cpu_rx_pct",
      "gpu_sm_pct", "gpu_mem_pct", "post_process_gemm_dim", "post_process_sync"};
  auto header = split(csv_header());
  ASSERT_GT(header.size(), daqiri.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + daqiri.size()), daqiri);
}

TEST(Csv, AppendWritesTheHeaderOnce) {
  Cell cell = udp_cell();
  cell.csv_file = ::testing::TempDir() + "outputs_test.csv";
  std::remove(cell.csv_file.c_str());
  ASSERT_TRUE(append_csv(cell, sample_result(cell)));
  ASSERT_TRUE(append_csv(cell, sample_result(cell)));
  std::ifstream in(cell.csv_file);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], csv_header());
  EXPECT_EQ(lines[1], lines[2]);
  std::remove(cell.csv_file.c_str());
}

TEST(Summary, HasTheContractsKeysAsIntegers) {
  Cell cell = udp_cell();
  auto j = nlohmann::json::parse(summary_text(cell, sample_result(cell)));
  for (const char* key : {"v", "seconds_milli", "payload_bytes", "pairs", "target_mbps", "tx_packets", "tx_bytes",
                          "rx_packets", "rx_bytes", "pps", "tx_mbps", "rx_mbps", "drops", "loss_ppm",
                          "cpu_master_mpct", "cpu_tx_mpct", "cpu_rx_mpct", "gpu_sm_mpct", "gpu_mem_mpct"})
    EXPECT_TRUE(j.at(key).is_number_integer()) << key;
  for (const char* key : {"transport", "role", "state", "reason", "drops_kind"})
    EXPECT_TRUE(j.at(key).is_string()) << key;
  EXPECT_EQ(j["state"], "Valid");
  EXPECT_EQ(j["cpu_tx_mpct"], 92500);
  EXPECT_EQ(j["cpu_rx_mpct"], -1);
  EXPECT_EQ(j["loss_ppm"], 5000);
}

TEST(Summary, StaysWithinTheTerminationMessageLimit) {
  Cell cell = udp_cell();
  RunResult r = failed_result(cell, std::string(10000, 'x') + "\"\\\n" + std::string(3000, '"'));
  const std::string text = summary_text(cell, r);
  EXPECT_LE(text.size(), kSummaryMaxBytes);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["state"], "Failed");
  EXPECT_GT(j["reason"].get<std::string>().size(), 3000u);  // cut, not dropped
  EXPECT_EQ(j["reason"].get<std::string>().substr(j["reason"].get<std::string>().size() - 3), "...");
}

TEST(Summary, RepeatsInOneProcessWriteALineEachWithinTheirShare) {
  Cell cell = udp_cell();
  cell.repeats = 3;
  cell.summary_file = ::testing::TempDir() + "outputs_test.summary";
  std::remove(cell.summary_file.c_str());
  RunResult first = sample_result(cell), second = sample_result(cell);
  second.rx_bytes += 1;
  RunResult broken = failed_result(cell, std::string(5000, 'y'));  // a long reason must be cut to the share
  ASSERT_TRUE(write_summary(cell, first, 0));
  ASSERT_TRUE(write_summary(cell, second, 1));
  ASSERT_TRUE(write_summary(cell, broken, 2));
  std::ifstream in(cell.summary_file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_LE(text.str().size(), kSummaryMaxBytes);
  std::istringstream lines(text.str());
  std::vector<nlohmann::json> got;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), kSummaryMaxBytes / 3) << "each repeat keeps to its share";
    got.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0]["rx_bytes"].get<int64_t>() + 1, got[1]["rx_bytes"].get<int64_t>());
  EXPECT_EQ(got[2]["state"], "Failed");
  // a new process (repeat 0) starts the file again
  ASSERT_TRUE(write_summary(cell, first, 0));
  std::ifstream again(cell.summary_file);
  std::string only;
  std::getline(again, only);
  EXPECT_EQ(nlohmann::json::parse(only)["rx_bytes"], got[0]["rx_bytes"]);
  EXPECT_FALSE(std::getline(again, only));
  std::remove(cell.summary_file.c_str());
}

TEST(Record, OneLineWithEveryFigureAndTheLabels) {
  Cell cell = udp_cell(1);
  cell.labels = {{"cell", "3"}};
  std::ostringstream out;
  ASSERT_TRUE(emit_outputs(cell, sample_result(cell), out));
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["event"], "result");
  EXPECT_EQ(j["labels"]["cell"], "3");
  EXPECT_EQ(j["pair_results"].size(), 1u);
  EXPECT_EQ(j["pair_results"][0]["lost"], 10);
  EXPECT_EQ(j["cell"]["transport"], "udp");
  EXPECT_EQ(j["cpu_cores"][0]["busy_mpct"], 92500);
}

TEST(Record, CsvOnStdoutFollowsTheRecord) {
  Cell cell = udp_cell();
  cell.csv = true;
  std::ostringstream out;
  emit_outputs(cell, sample_result(cell), out);
  std::istringstream lines(out.str());
  std::string record, header, row;
  std::getline(lines, record);
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(record.front(), '{');
  EXPECT_EQ(header, csv_header());
  EXPECT_EQ(split(row).size(), split(header).size());
}

}  // namespace
}  // namespace spiral
