#pragma once
// GPU-to-GPU copies between every ordered pair of GPUs (peer_spec.hpp says what each method and
// mode is), and all GPUs with the host at once. Buffers come from the memory provider: per GPU a
// send and a receive buffer of the largest size, so one pair's copies never overlap another's
// data; peer access is enabled both ways wherever CUDA allows it.
#include <memory>
#include <utility>
#include <vector>

#include "memory/region.hpp"
#include "transports/gpucopy/copy_spec.hpp"
#include "transports/gpucopy/cuda/lanes.hpp"

namespace spiral::gpucopy {

class PeerBench {
 public:
  PeerBench(std::vector<int> devices, uint64_t max_bytes);
  ~PeerBench();
  PeerBench(const PeerBench&) = delete;
  PeerBench& operator=(const PeerBench&) = delete;

  size_t size() const { return devices_.size(); }
  // GPU s may read and write GPU d's memory (peer access enabled).
  bool peer_access(size_t s, size_t d) const { return access_[s * size() + d]; }
  // `iterations` copies s->d (and d->s at once for bi), released together after `warmup` untimed
  // ones: GB/s of s->d and of d->s (-1 for uni). Throws BadInput for sm without peer access.
  std::pair<double, double> measure(PeerMethod m, PeerMode mode, size_t s, size_t d, uint64_t bytes, int iterations,
                                    int warmup);
  // GPU i's buffers: measure() copies send(s) into recv(d).
  std::byte* send(size_t i) const { return gpus_[i].send->device_pointer(); }
  std::byte* recv(size_t i) const { return gpus_[i].recv->device_pointer(); }

 private:
  struct Gpu {
    std::unique_ptr<memory::Region> send, recv;
    std::unique_ptr<Lane> lane;
    int blocks = 0;  // for the sm copy: 4 blocks of 512 threads per SM
  };
  void enqueue(PeerMethod m, size_t s, size_t d, uint64_t bytes, int count);

  std::vector<int> devices_;
  std::vector<Gpu> gpus_;
  std::vector<bool> access_, enabled_here_;
  Gate gate_;
};

// Every matrix of spec.peer over `devices` (positions), with each pair's path (NVML, else
// "unknown"); the note says what was skipped. Fewer than two GPUs: no matrices, a note.
PeerResult measure_peers(const CopySpec& spec, const std::vector<int>& devices);

// Each GPU alone, then all at once, copying `bytes` between its memory and its own buffer of
// pinned host memory, per direction of spec.peer.aggregate.
std::vector<HostAggregate> measure_host_aggregate(const CopySpec& spec, const std::vector<int>& devices, uint64_t bytes);

}  // namespace spiral::gpucopy
