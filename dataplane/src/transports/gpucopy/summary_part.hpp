#pragma once
// The "gpucopy" part of a copy bench's summary (the operator's reader:
// pkg/benchkind/gpucopy_summary.go):
//   {"gpus":[[device,numa_node,pcie_gen,pcie_width],...],
//    "rows":[[device,"h2d","pinned",bytes,time_ns,mbps],...]}
// followed by the peer matrices and the host aggregate (peer_summary.hpp).
#include <nlohmann/json.hpp>
#include <vector>

#include "transports/gpucopy/copy_spec.hpp"

namespace spiral::gpucopy {

constexpr size_t kMaxSummaryRows = 96;  // without peer matrices, keeps the part under ~3.5 KiB

nlohmann::json summary_part(const std::vector<GpuPlacement>& gpus, const std::vector<CopyRow>& rows);

}  // namespace spiral::gpucopy
