#pragma once
// One NCCL cell as the engine runs it (nccl-tests' options in brackets) and what it reports per
// size. Plain structs: parsed and validated once at the edge, read by the engine and the report.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "config/size_sweep.hpp"
#include "transports/nccl/identifiers.hpp"
#include "transports/nccl/split.hpp"

namespace spiral::nccl {

// nccl-tests' -z: what follows every operation. The barrier meets the other ranks; with one
// rank there is none to meet and it is skipped.
enum class Blocking {
  none = 0,             // operations queue back to back; one wait at the end
  wait_barrier = 1,     // wait for each, then a barrier, both inside the time
  wait = 2,             // wait for each, no barrier
  wait_untimed_barrier = 3,  // wait for each (timed), then a barrier outside the time
};

// nccl-tests' -R: how the send and receive buffers are registered with the communicator.
enum class Registration {
  none = 0,
  local = 1,      // ncclCommRegister
  symmetric = 2,  // ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC): NCCL >= 2.27
};

// alltoallv's traffic (alltoallv.hpp): generated, distance-weighted by spread, or a matrix.
struct AllToAllvPattern {
  double spread = 1.0;            // generated mode (nccl-tests' NCCL_TESTS_ALLTOALLV_SPREAD)
  int dim = 0;                    // matrix mode when > 0 (NCCL_TESTS_ALLTOALLV_MATRIX_FILE)
  std::vector<uint64_t> matrix;   // dim * dim bytes, [from * dim + to], multiples of 16
  bool from_matrix() const { return dim > 0; }
};

struct SweepSpec {
  Collective collective = Collective::all_reduce;
  ElementType type = ElementType::float32;  // [-d]
  ReduceOp op = ReduceOp::sum;              // [-o]
  int root = 0;                             // [-r] broadcast and reduce
  SizeSweep sweep;                          // [-b -e -f -i]
  int iterations = 20;                      // [-n] timed operations per size and placement
  int warmup_iterations = 1;                // [-w] untimed operations per size before the sweep
  bool out_of_place = true, in_place = true;
  int check_iterations = 1;                 // [-c] checked operations per size and placement; 0: none
  int unalign = 0;       // [-u] both buffers start this many elements past a 16-byte boundary
  Blocking blocking = Blocking::none;        // [-z]
  int timeout_s = 0;     // [-T] a wait for the GPU longer than this aborts the communicator; 0: none
  Registration registration = Registration::none;  // [-R]
  AllToAllvPattern alltoallv;  // alltoallv only
  SplitRule split;             // [NCCL_TESTS_SPLIT] ranks in groups, each its own communicator
};

// Where this process sits in the cell.
struct RankPlace {
  int rank = 0, nranks = 1;
  int device = 0;  // CUDA device index in this process
};

// One line of the report: a size and a placement.
struct SizeRow {
  uint64_t bytes = 0;  // nccl-tests' "size": max(send, recv) bytes of one rank
  uint64_t count = 0;  // the count passed to NCCL
  bool in_place = false;
  double time_us = 0;  // mean time per operation, host clock as nccl-tests (the ranks' mean, once merged)
  double algbw_gbps = 0, busbw_gbps = 0;
  int64_t wrong = -1;  // elements that failed the check (summed over ranks); -1: not checked
  double gpu_time_us = 0;  // the same operations between CUDA events (the ranks' mean, once merged)
  // Per iteration (nccl-tests 2.19's -I), from a pass of its own: percentiles of the operations'
  // own times (CUDA events between them), once merged the largest over the ranks; 0: not measured.
  double p50_us = 0, p99_us = 0;
  int slowest_rank = 0;        // once merged: the rank with the largest time_us
  double slowest_time_us = 0;  // that rank's time_us
  // This rank's own per-iteration times (that pass), kept for nccl-tests' JSON (-J with -I):
  // at most kMaxKeptIterationTimes over the whole sweep, the first of each row (see there).
  std::vector<double> iter_us{};
};

// The per-iteration times one rank keeps over a sweep: its report to rank 0 carries them as
// integer nanoseconds (about 8 bytes each) within the control channel's 1 MiB message, and rank
// 0 holds every rank's. Past this, each row keeps its first iterations_kept() times.
constexpr size_t kMaxKeptIterationTimes = 32768;
inline size_t iterations_kept(int iterations, size_t rows) {
  const size_t per_row = rows ? kMaxKeptIterationTimes / rows : kMaxKeptIterationTimes;
  return std::min(static_cast<size_t>(iterations > 0 ? iterations : 0), per_row);
}

}  // namespace spiral::nccl
