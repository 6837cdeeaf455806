#pragma once
// nccl-tests 2.19's alltoallv_perf: every rank sends a different amount to each peer (grouped
// ncclSend/ncclRecv). Either generated, distance-weighted by `spread` (0 uniform .. 1 all by
// distance in rank space; every rank still sends and receives the same total), or an explicit
// traffic matrix of bytes from rank i to rank j. Per-peer amounts are rounded down to 16 bytes,
// as nccl-tests does. Pure arithmetic: the engine sends what this says, the check expects it.
#include <cstdint>
#include <string>
#include <vector>

#include "transports/nccl/counts.hpp"
#include "transports/nccl/sweep_spec.hpp"  // AllToAllvPattern

namespace spiral::nccl {

// Bytes rank `from` sends rank `to`; `total_bytes` is what each rank sends in all (generated
// mode: param * nranks * element bytes; unused with a matrix).
uint64_t peer_bytes(const AllToAllvPattern& p, int from, int to, int nranks, uint64_t total_bytes);

// nccl-tests' counts for a requested size: param the per-peer count of the uniform split (0
// with a matrix), send and recv the largest totals over the ranks (every rank's buffers hold them).
Counts alltoallv_counts(const AllToAllvPattern& p, size_t elements, size_t element_bytes, int nranks);

// Where rank `rank`'s data for each peer starts in its send buffer and where each peer's data
// lands in its receive buffer, in elements, and how many: the engine's sends and receives and
// the check's expected segments.
struct PeerSegment {
  int peer = 0;
  uint64_t send_at = 0, send_count = 0;  // this rank -> peer
  uint64_t recv_at = 0, recv_count = 0;  // peer -> this rank
  uint64_t peer_send_at = 0;             // where the received data sat in the peer's send buffer
};
std::vector<PeerSegment> alltoallv_segments(const AllToAllvPattern& p, int rank, int nranks, size_t param,
                                            size_t element_bytes);

// A traffic matrix as nccl-tests reads its file: whitespace-separated byte counts, square, values
// rounded down to 16 bytes; rows may also be separated by ';' or ',' (a flag's one line).
// Throws BadInput naming what is wrong.
AllToAllvPattern parse_traffic_matrix(const std::string& text);

// Why `p` cannot serve nranks ranks with buffers of max_bytes ("" when it can).
std::string alltoallv_refusal(const AllToAllvPattern& p, int nranks, uint64_t min_bytes, uint64_t max_bytes);

}  // namespace spiral::nccl
