#pragma once
// One rank's part of an NCCL cell, from start to report: NCCL's environment, the unique id over
// the control channel (bootstrap.hpp), the sweep on this rank's GPU (nccl_engine.hpp), then the
// ranks' rows and transports gathered on rank 0, merged and judged. Built with NCCL only.
#include <functional>
#include <string>
#include <vector>

#include "sys/clock.hpp"
#include "transports/nccl/network_env.hpp"
#include "transports/nccl/sweep_spec.hpp"
#include "transports/nccl/transport_log.hpp"

namespace spiral::nccl {

struct RankRun {
  std::string cell = "nccl";
  SweepSpec spec;
  RankPlace place;
  std::string root_host = "127.0.0.1";  // ranks > 0: where rank 0 listens
  uint16_t port = 0;                    // rank 0 listens here; ranks > 0 connect
  std::string bind_address = "0.0.0.0"; // rank 0's listening address
  Millis bootstrap_timeout{60000};      // every rank must have arrived by then
  Millis report_timeout{600000};        // rank 0's wait for the others' rows after its own sweep
  NetworkChoice network;
  std::string log_dir = "/tmp";         // NCCL's INFO log: <log_dir>/spiral-nccl-rank<r>.log
  std::function<void()> on_listening;   // rank 0: called once the other ranks may connect
  std::string nccl_tests_json;          // rank 0: also write nccl-tests' JSON here, even on failure
};

struct RankOutcome {
  std::vector<SizeRow> rows;    // rank 0: merged over the ranks; other ranks: their own
  std::string nccl_version;     // of the library this process loaded
  TransportLog transports;      // rank 0: every rank's connections; other ranks: their own
  std::string invalid_reason;   // rank 0: why the cell's numbers cannot count (RDMA asked, sockets used)
  bool check_passed = true;
  std::string log_path;         // NCCL's own log of this rank
  std::string nccl_tests_json;  // rank 0: the file written ("" none)
};

// Throws RunFailure (a rank missing, a CUDA or NCCL error) or BadInput (a spec NCCL refuses).
RankOutcome run_rank(const RankRun& run);

}  // namespace spiral::nccl
