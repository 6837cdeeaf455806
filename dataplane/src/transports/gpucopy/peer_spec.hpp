#pragma once
// GPU-to-GPU copies between every ordered pair of a node's GPUs (nvbandwidth's device-to-device
// tests), and every GPU copying to or from host memory at once: what to measure and what comes
// out. Plain structs; the CUDA engine is cuda/peer_engine.hpp.
//
// A matrix is src x dst, GB/s of the bytes that reached dst; the diagonal is not measured.
//   ce  the copy engines: cudaMemcpyPeerAsync on a stream of the source GPU
//   sm  a copy kernel on the source GPU writing into the peer's memory (needs peer access)
//   uni one direction alone; bi  src->dst while dst->src runs on the peer's stream, [s][d] being
//       the src->dst direction's share (the pair's total is [s][d] + [d][s])
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spiral::gpucopy {

enum class PeerMethod { ce, sm };
enum class PeerMode { uni, bi };
enum class HostDirection { h2d, d2h };

std::string_view name(PeerMethod m);     // "ce", "sm"
std::string_view name(PeerMode m);       // "uni", "bi"
std::string_view name(HostDirection d);  // "h2d", "d2h"
PeerMethod peer_method_named(std::string_view n);  // throws BadInput naming the known ones
PeerMode peer_mode_named(std::string_view n);
HostDirection host_direction_named(std::string_view n);

struct PeerSpec {
  std::vector<PeerMethod> methods{PeerMethod::ce, PeerMethod::sm};  // empty: no peer matrices
  std::vector<PeerMode> modes{PeerMode::uni, PeerMode::bi};
  std::vector<uint64_t> bytes{256ull << 20};  // one set of matrices per size (nvbandwidth: 512 MiB)
  // all GPUs at once against each alone, pinned host memory, at the sweep's largest size; empty: none
  std::vector<HostDirection> aggregate{HostDirection::h2d, HostDirection::d2h};
};

// What connects two GPUs, as `nvidia-smi topo -m` names it: "NV18" (NVLink, 18 links active on
// the source), "PIX", "PXB", "PHB", "NODE", "SYS" (PCIe, nearest common ancestor), or "unknown"
// when NVML cannot say. p2p: CUDA lets the pair access each other's memory (peer access).
struct PeerPath {
  int a = 0, b = 0;  // CUDA device indices, a < b
  std::string path = "unknown";
  bool p2p = false;
};

struct PeerMatrix {
  PeerMethod method = PeerMethod::ce;
  PeerMode mode = PeerMode::uni;
  uint64_t bytes = 0;
  size_t n = 0;              // GPUs, in PeerResult::devices order
  std::vector<double> gbps;  // n*n row-major [src][dst]; negative: not measured (diagonal, no peer access)
  double at(size_t src, size_t dst) const { return gbps[src * n + dst]; }
};
PeerMatrix empty_matrix(PeerMethod m, PeerMode mode, uint64_t bytes, size_t n);  // every cell -1

// Each GPU alone, then every GPU at once: GB/s per GPU, and the aggregate (all bytes over the
// span from the common start to the last GPU's end).
struct HostAggregate {
  HostDirection direction = HostDirection::h2d;
  uint64_t bytes = 0;  // per GPU per copy
  std::vector<double> alone_gbps, together_gbps;
  double aggregate_gbps = 0;
};

struct PeerResult {
  std::vector<int> devices;  // the order of matrix rows and columns
  std::vector<PeerPath> paths;
  std::vector<PeerMatrix> matrices;
  std::vector<HostAggregate> host;
  std::string note;  // why something was not measured ("one GPU: no pairs"), else ""
};

// The ordered pairs (src, dst) of n GPUs by position, src-major, no diagonal.
std::vector<std::pair<size_t, size_t>> ordered_pairs(size_t n);
// A matrix as rows of integer MB/s (10^6 B/s), -1 where not measured: the compact form of the
// summary and the status.
std::vector<std::vector<int64_t>> rows_mbps(const PeerMatrix& m);

}  // namespace spiral::gpucopy
