#pragma once
// The "nccl" part of rank 0's summary (the termination message the operator reads, at most 4 KiB
// with everything else): rows as compact arrays, the transports NCCL chose. The operator's
// reader is pkg/summary/collective.go.
//   {"op":"all_gather","ranks":2,"version":"2.28.9+cuda13.0","network":"IB",
//    "rows":[[bytes,in_place,time_ns,algbw_mbps,busbw_mbps,wrong],...],
//    "peers":[[from,to,"NET/IB","NET/IB/0/GDRDMA"],...]}
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "transports/nccl/sweep_spec.hpp"
#include "transports/nccl/transport_log.hpp"

namespace spiral::nccl {

constexpr size_t kMaxSummaryRows = 128;  // status keeps at most 128 (CollectiveResult.sizes)
constexpr size_t kMaxSummaryPeers = 16;

nlohmann::json summary_part(Collective op, int nranks, const std::vector<SizeRow>& rows, const TransportLog& log);

}  // namespace spiral::nccl
