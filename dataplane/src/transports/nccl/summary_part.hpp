#pragma once
// The "nccl" part of rank 0's summary (the termination message the operator reads, at most 4 KiB
// with everything else): rows as compact arrays, the transports NCCL chose. The operator's
// reader is pkg/benchkind/nccl_summary.go.
//   {"op":"all_gather","ranks":2,"version":"2.28.9+cuda13.0","network":"IB",
//    "rows":[[bytes,in_place,time_ns,algbw_mbps,busbw_mbps,wrong],...],
//    "iter":[[p50,p99,slowest_rank,slowest],...],
//    "peers":[[from,to,"NET/IB","NET/IB/0/GDRDMA"],...]}
// "iter" pairs with "rows" by index; p50, p99 and the slowest rank's time are per mille off the
// row's time (-3: 0.3% faster), short numbers where nanoseconds would not fit 4 KiB.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "transports/nccl/sweep_spec.hpp"
#include "transports/nccl/transport_log.hpp"

namespace spiral::nccl {

constexpr size_t kMaxSummaryRows = 128;  // status keeps at most 128 (CollectiveResult.sizes)
constexpr size_t kMaxSummaryPeers = 16;

nlohmann::json summary_part(Collective op, int nranks, const std::vector<SizeRow>& rows, const TransportLog& log);

// The part cut to `budget` bytes (dumped): first without "iter" (the per-iteration figures),
// then without the largest sizes; never below one row.
nlohmann::json fit_summary_part(nlohmann::json part, size_t budget);

}  // namespace spiral::nccl
