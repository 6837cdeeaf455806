#pragma once
// The engine's NCCL and CUDA handles, each released by its destructor (nccl_engine.cpp only).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/cuda/check.hpp"
#include "sys/errors.hpp"
#include "transports/nccl/bootstrap.hpp"
#include "transports/nccl/sweep_spec.hpp"

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
// weak, as nccl-tests: the binary still loads on an older libnccl.so.2; preflight refuses -R 2 there
#pragma weak ncclCommWindowRegister
#pragma weak ncclCommWindowDeregister
#endif

namespace spiral::nccl {

inline void check_nccl(ncclResult_t rc, const char* call) {
  if (rc == ncclSuccess || rc == ncclInProgress) return;
  const char* detail = ncclGetLastError(nullptr);
  throw RunFailure(std::string("NCCL: ") + call + ": " + ncclGetErrorString(rc) +
                   (detail && *detail ? std::string(" (") + detail + ")" : ""));
}
#define SPIRAL_NCCL(call) ::spiral::nccl::check_nccl((call), #call)

struct Communicator {
  ncclComm_t comm = nullptr;
  Communicator(const UniqueId& id, const RankPlace& place) {
    ncclUniqueId uid;
    std::memcpy(&uid, id.data(), sizeof uid);
    // the communicator nccl-tests 2.19.6 builds, so the two compare like for like
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    config.nvlinkCentricSched = 1;
#endif
    SPIRAL_NCCL(ncclCommInitRankConfig(&comm, place.nranks, uid, place.rank, &config));
  }
  ~Communicator() {
    if (!comm) return;
    if (ncclCommFinalize(comm) == ncclSuccess) ncclCommDestroy(comm);
    else ncclCommAbort(comm);
  }
  // The group of `parent`'s ranks of colour `colour`, ranked by `key` (NCCL_TESTS_SPLIT).
  Communicator(ncclComm_t parent, int colour, int key) {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    config.nvlinkCentricSched = 1;
#endif
    SPIRAL_NCCL(ncclCommSplit(parent, colour, key, &comm, &config));
  }
  // After a timeout: the operations in flight never finish, so finalizing would hang too.
  void abort() {
    if (comm) ncclCommAbort(comm);
    comm = nullptr;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
};

// ncclMemAlloc, as nccl-tests allocates its buffers (cuMem memory NCCL can register and map).
struct NcclBuffer {
  size_t size = 0;
  void* ptr = nullptr;
  explicit NcclBuffer(size_t bytes) : size(std::max<size_t>(bytes, 1)) { SPIRAL_NCCL(ncclMemAlloc(&ptr, size)); }
  ~NcclBuffer() { if (ptr) ncclMemFree(ptr); }
  NcclBuffer(const NcclBuffer&) = delete;
  NcclBuffer& operator=(const NcclBuffer&) = delete;
  char* bytes() const { return static_cast<char*>(ptr); }
};

// -R: both buffers registered with the communicator for the whole sweep, as nccl-tests does.
struct Registered {
  Communicator& comm;
  Registration mode;
  void* handles[2] = {nullptr, nullptr};
  Registered(Communicator& c, Registration m, const NcclBuffer& send, const NcclBuffer& recv) : comm(c), mode(m) {
    const NcclBuffer* bufs[2] = {&send, &recv};
    for (int i = 0; i < 2; ++i) {
      if (mode == Registration::local) SPIRAL_NCCL(ncclCommRegister(comm.comm, bufs[i]->ptr, bufs[i]->size, &handles[i]));
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
      if (mode == Registration::symmetric)
        SPIRAL_NCCL(ncclCommWindowRegister(comm.comm, bufs[i]->ptr, bufs[i]->size,
                                           reinterpret_cast<ncclWindow_t*>(&handles[i]), NCCL_WIN_COLL_SYMMETRIC));
#else
      if (mode == Registration::symmetric) throw RunFailure("registration symmetric: built against NCCL < 2.27");
#endif
    }
  }
  ~Registered() {
    if (!comm.comm) return;  // aborted: the communicator took its registrations with it
    for (void* h : handles) {
      if (!h) continue;
      if (mode == Registration::local) ncclCommDeregister(comm.comm, h);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
      if (mode == Registration::symmetric) ncclCommWindowDeregister(comm.comm, static_cast<ncclWindow_t>(h));
#endif
    }
  }
  Registered(const Registered&) = delete;
  Registered& operator=(const Registered&) = delete;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { SPIRAL_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { if (s) cudaStreamDestroy(s); }
};

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    SPIRAL_CUDA(cudaEventCreate(&start));
    SPIRAL_CUDA(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// One event before every operation of a pass and one after the last.
struct EventList {
  std::vector<cudaEvent_t> events;
  explicit EventList(size_t count) : events(count, nullptr) {
    for (auto& e : events) SPIRAL_CUDA(cudaEventCreate(&e));
  }
  ~EventList() {
    for (auto e : events)
      if (e) cudaEventDestroy(e);
  }
  EventList(const EventList&) = delete;
  EventList& operator=(const EventList&) = delete;
};

}  // namespace spiral::nccl
