// The GPU workload's part of the cell/CLI contract and of the outputs.
#include <gtest/gtest.h>

#include <sstream>

#include "app/cli.hpp"
#include "sys/errors.hpp"
#include "config/cell_json.hpp"
#include "config/cell_parse.hpp"
#include "control/messages.hpp"
#include "gpu/build.hpp"
#include "gpu/receive_path.hpp"
#include "output/csv_row.hpp"
#include "transports/roce/rdma_options.hpp"
#include "output/record_json.hpp"
#include "output/summary.hpp"

#include "cell_refusal.hpp"

namespace spiral {
namespace {

using nlohmann::json;

json parse_flags(std::vector<const char*> args) {
  args.insert(args.begin(), "spiral-dataplane");
  std::ostringstream out;
  return *parse_command_line(static_cast<int>(args.size()), args.data(), out);
}

using spiral::testing::refusal;

json server(json extra = json::object()) {
  json j = {{"transport", "udp"}, {"role", "server"}};
  j.update(extra);
  return j;
}

TEST(GpuCell, DefaultsAreTheContracts) {
  Cell c = parse_cell(server());
  EXPECT_EQ(c.workload, Workload::none);
  EXPECT_EQ(c.gemm_n, 1024u);
  EXPECT_EQ(c.fft_length, 1024u);
  EXPECT_EQ(c.workload_batch_bytes, 0u);
  EXPECT_EQ(c.sync_interval, 2u);
  EXPECT_EQ(c.max_in_flight, 2u);
  EXPECT_EQ(gpu::window_bytes(c), 8u << 20);
}

TEST(GpuCell, FlagsSetTheKeysOfTheSameName) {
  json j = parse_flags({"server", "--transport", "tcp", "--gemm-n", "512", "--fft-length", "4096",
                        "--workload-batch-bytes", "1048576", "--sync-interval", "4", "--max-in-flight", "3"});
  EXPECT_EQ(j["gemm_n"], 512);
  EXPECT_EQ(j["fft_length"], 4096);
  EXPECT_EQ(j["workload_batch_bytes"], 1048576);
  EXPECT_EQ(j["sync_interval"], 4);
  EXPECT_EQ(j["max_in_flight"], 3);
  Cell c = parse_cell(j);
  EXPECT_EQ(c.gemm_n, 512u);
  EXPECT_EQ(gpu::window_bytes(c), 1048576u);
  // and the record's cell echoes them in the same keys, so it can be re-run
  json echoed = cell_to_json(c);
  for (const char* key : {"gemm_n", "fft_length", "workload_batch_bytes", "sync_interval", "max_in_flight"})
    EXPECT_EQ(echoed[key], j[key]) << key;
}

// In place over net_ring too: the sender's mbufs, which the receiver gets, are made in the
// registered receive memory (dpdk_env.cpp).
TEST(GpuCell, RawTakesAWorkloadInPlaceAndStaged) {
#ifndef SPIRAL_HAVE_DPDK
  GTEST_SKIP() << "built without DPDK: every raw cell is refused";
#endif
  if (!gpu::kBuiltWithCuda) GTEST_SKIP() << "built without CUDA: every GPU workload is refused (GpuCell.WorkloadKindsFollowTheBuild)";
  auto raw = [](const char* memory, const char* port) {
    return parse_flags({"loopback", "--transport", "raw", "--tx-port", port, "--rx-port", port, "--workload", "gemm",
                        "--memory", memory});
  };
  EXPECT_STREQ(to_string(parse_cell(raw("host", "net_ring0")).workload), "gemm") << "staged over net_ring";
  EXPECT_STREQ(to_string(parse_cell(raw("host_pinned", "net_memif0,role=server")).workload), "gemm");
  EXPECT_STREQ(to_string(parse_cell(raw("host_pinned", "net_ring0")).workload), "gemm") << "in place over net_ring";
  EXPECT_NE(refusal(raw("device", "net_ring0")).find("net_ring0 is a virtual device"), std::string::npos)
      << refusal(raw("device", "net_ring0"));
}

TEST(GpuCell, WorkloadKindsFollowTheBuild) {
  for (const char* kind : {"fft", "gemm", "gemm_fp16"}) {
    json j = parse_flags({"server", "--transport", "udp", "--workload", kind});
    if (gpu::kBuiltWithCuda) {
      Cell c = parse_cell(j);
      EXPECT_STREQ(to_string(c.workload), kind);
    } else {
      EXPECT_EQ(refusal(j), std::string("cell: \"workload.kind\" is \"") + kind +
                                "\", which needs a GPU: this spiral-dataplane was built without CUDA");
    }
  }
}

// roce hands the server's received messages to the GPU: sends and writes in bandwidth mode only.
TEST(GpuCell, RoceWorkloadsNeedAStreamIntoTheServer) {
#if !SPIRAL_HAVE_RDMA
  GTEST_SKIP() << "built without rdma-core: transport roce is refused before its workload is read";
#endif
  const json gemm = {{"transport", "roce"}, {"role", "server"}, {"workload", {{"kind", "gemm"}}}};
  if (!gpu::kBuiltWithCuda) {
    EXPECT_EQ(refusal(gemm), "cell: \"workload.kind\" is \"gemm\", which needs a GPU: this spiral-dataplane was "
                             "built without CUDA");
    return;
  }
  const std::string why =
      "cell: \"workload.kind\" is gemm: a GPU workload needs verb send or write in bandwidth mode (it runs on what "
      "the server receives; reads land at the client)";
  json read = gemm, latency = gemm, write = gemm;
  read["verb"] = "read";
  latency["mode"] = "latency";
  write["verb"] = "write";
  EXPECT_EQ(refusal(read), why);
  EXPECT_EQ(refusal(latency), why);
  EXPECT_EQ(parse_cell(gemm).workload, Workload::gemm);
  EXPECT_EQ(rdma_options(parse_cell(write)).verb, RdmaOptions::Verb::write);
}

TEST(GpuCell, RefusesSettingsOutOfRange) {
  EXPECT_EQ(refusal(server({{"fft_length", 1000}})), "cell: \"fft_length\" must be a power of two, got 1000");
  EXPECT_EQ(refusal(server({{"fft_length", 1}})), "cell: \"fft_length\" must be an integer in 2..65536, got 1");
  EXPECT_EQ(refusal(server({{"gemm_n", 8}})), "cell: \"gemm_n\" must be an integer in 16..16384, got 8");
  EXPECT_EQ(refusal(server({{"sync_interval", 0}})), "cell: \"sync_interval\" must be an integer in 1..1024, got 0");
  EXPECT_EQ(refusal(server({{"max_in_flight", 65}})), "cell: \"max_in_flight\" must be an integer in 1..64, got 65");
  EXPECT_EQ(refusal(server({{"workload_batch_bytes", -1}})),
            "cell: \"workload_batch_bytes\" must be an integer in 0..1073741824, got -1");
}

RunResult result_with_gpu() {
  RunResult r;
  r.state = RunState::valid;
  r.pairs.resize(1);
  r.gpu.workload = "gemm";
  r.gpu.device = "NVIDIA Test GPU";
  r.gpu.window_bytes = 8u << 20;
  r.gpu.counters.windows = 12;
  r.gpu.counters.stalls = 3;
  r.gpu.sm_mpct = 55900;
  r.gpu.mem_mpct = 12345;
  r.gpu.samples = 30;
  r.gpu.nvml = "ok";
  return r;
}

TEST(GpuOutputs, SummaryCarriesUtilisationAndStalls) {
  Cell c = parse_cell(server());
  json s = json::parse(summary_text(c, result_with_gpu()));
  EXPECT_EQ(s["gpu_sm_mpct"], 55900);
  EXPECT_EQ(s["gpu_mem_mpct"], 12345);
  EXPECT_EQ(s["gpu_stalls"], 3);
  json none = json::parse(summary_text(c, RunResult{}));
  EXPECT_EQ(none["gpu_sm_mpct"], -1);
  EXPECT_EQ(none["gpu_mem_mpct"], -1);
  EXPECT_EQ(none["gpu_stalls"], 0);
}

TEST(GpuOutputs, SummaryStaysWithinTheLimitWithALongReason) {
  Cell c = parse_cell(server());
  RunResult r = result_with_gpu();
  r.state = RunState::failed;
  r.reason = std::string(9000, 'g');
  EXPECT_LE(summary_text(c, r).size(), kSummaryMaxBytes);
}

// gpu_sm_pct, gpu_mem_pct, post_process_gemm_dim, post_process_sync: DAQIRI's columns 20-23
// (output/runs_csv_columns.def), with DAQIRI's values: 0 for an unknown percentage, the GEMM
// dimension whatever the workload, the sync interval as a number.
std::string gpu_columns(const std::string& row) {
  std::vector<std::string> fields;
  std::stringstream in(row);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  if (fields.size() < 23) return "too few columns: " + row;
  return fields[19] + "," + fields[20] + "," + fields[21] + "," + fields[22];
}

TEST(GpuOutputs, CsvColumnsAsTheOperatorsReport) {
  Cell c = parse_cell(server({{"gemm_n", 2048}, {"sync_interval", 4}}));
  c.workload = Workload::gemm;  // set directly: a build without CUDA refuses it at parse time
  std::string row = csv_row(c, result_with_gpu());
  EXPECT_NE(row.find(",gemm,"), std::string::npos) << row;
  EXPECT_EQ(gpu_columns(row), "55.9,12.3,2048,4") << row;
  c.workload = Workload::fft;
  row = csv_row(c, result_with_gpu());
  EXPECT_EQ(gpu_columns(row), "55.9,12.3,2048,4") << row;  // DAQIRI writes the GEMM dimension for every workload
  c.workload = Workload::none;
  row = csv_row(c, RunResult{});
  EXPECT_EQ(gpu_columns(row), "0,0,2048,4") << row;  // unknown percentages are 0 (the unknown column names them)
  EXPECT_NE(row.find("gpu_sm_pct;gpu_mem_pct"), std::string::npos) << row;
}

TEST(GpuOutputs, RecordHasTheGpuObject) {
  Cell c = parse_cell(server());
  auto rec = result_record(c, result_with_gpu());
  EXPECT_EQ(rec["gpu"]["device"], "NVIDIA Test GPU");
  EXPECT_EQ(rec["gpu"]["windows"], 12);
  EXPECT_EQ(rec["gpu_stalls"], 3);
  EXPECT_TRUE(result_record(c, RunResult{})["gpu"].is_null());
}

TEST(GpuOutputs, TheReceiversGpuReportCrossesTheControlConnection) {
  SideReport rx;
  rx.gpu = result_with_gpu().gpu;
  SideReport back = side_report_from_json(to_json(rx));
  EXPECT_EQ(back.gpu.device, "NVIDIA Test GPU");
  EXPECT_EQ(back.gpu.counters.stalls, 3u);
  EXPECT_EQ(back.gpu.sm_mpct, 55900);
  SideReport plain = side_report_from_json(to_json(SideReport{}));  // no GPU: no key, defaults
  EXPECT_FALSE(plain.gpu.used());
  EXPECT_EQ(plain.gpu.sm_mpct, -1);
}

}  // namespace
}  // namespace spiral
