#pragma once
// An NCCL cell's results in nccl-tests 2.19's own JSON (-J, "version": 3, src/util.cu's writer),
// so its tools read ours as they read nccl-tests' output: tools/analyze_perf_json.py (per
// iteration: --straggler, --spikes, --iter0, --nodes) needs the *_per_iter objects, which are
// written when the rows kept their per-iteration times (SizeRow::iter_us).
// Same keys, nesting and types as nccl-tests; what we do not have is written as nccl-tests writes
// it when it has none either: a placement not run is null (its "out_of_place": null), nwrong null
// when not checked, no *_per_iter without times, no per_process_max_times_us for one rank.
// Differences, on purpose: "env" holds only NCCL_* and CUDA_* variables (a pod's environment may
// hold secrets); "args" is this process's command line (spiral-dataplane's or
// spiral-nccl-bench's, not an nccl-tests one); every rank is one process of one GPU (nccl-tests
// -g 1 under MPI), so "nthreads" and "ngpus" are 1 and a process row is a rank.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "transports/nccl/sweep_spec.hpp"

namespace spiral::nccl {

constexpr int kNcclTestsJsonVersion = 3;  // nccl-tests 2.19's JSON_FILE_VERSION

// One rank's process and GPU: nccl-tests' "devices" entry.
struct RankDevice {
  int rank = 0;
  int pid = 0;
  std::string host;
  int device = 0;          // CUDA device index in its process
  std::string pci_bus_id;  // "0000:1B:00.0" (written as nccl-tests' "0000:1b:00")
  std::string name;        // "NVIDIA H200"
};

nlohmann::json to_json(const RankDevice& d);
RankDevice rank_device_from_json(const nlohmann::json& j);  // missing fields stay empty

struct NcclTestsRun {
  SweepSpec spec;
  int nranks = 1;
  std::string nccl_version;  // "2.28.9", written as nccl-tests' code 22809; "" -> 0
  std::vector<std::string> args, env;
  std::string start_time, end_time;  // "%Y-%m-%d %H:%M:%S", local time, as nccl-tests
  std::vector<RankDevice> devices;   // by rank; may be empty (rank 0 failed before gathering)
  std::vector<SizeRow> rows;         // merged over the ranks (merge_ranks)
  // rank r's own rows: their iter_us are per_process_max_times_us[r]. Empty: not written.
  std::vector<std::vector<SizeRow>> per_rank;
  std::vector<std::string> errors;   // the run's failure, if any ([] as nccl-tests when none)
};

nlohmann::ordered_json nccl_tests_json(const NcclTestsRun& run);

// The pieces of a run taken from this process: its command line (/proc/self/cmdline), its NCCL_*
// and CUDA_* environment, the local time as nccl-tests formats it.
std::vector<std::string> own_command_line();
std::vector<std::string> nccl_environment_now();
std::string local_time_now();

// Writes the document to `path` without replacing a file already there: as nccl-tests, the next
// free of path, path.0, path.1, ... Returns the path written; throws RunFailure when none can be.
std::string write_nccl_tests_json(const std::string& path, const NcclTestsRun& run);

}  // namespace spiral::nccl
