#pragma once
// The memory provider: every data buffer a transport or the GPU pipeline allocates comes from
// here, in one of three kinds behind one type (perftest's memory_ctx):
//   host         anonymous pages, faulted in at allocation (the hot loops never fault)
//   host_pinned  the same pages locked (mlock); with kRegisterCuda also registered with CUDA
//                (cudaHostRegister, mapped), so the GPU reads them in place and copies them
//                with its copy engine
//   device       GPU memory (cudaMalloc); needs a CUDA build and a GPU
// Registration with a NIC is done by the transport that owns the NIC, on top of a Region:
// ibverbs (transports/roce/buffer.*: ibv_reg_mr) and DPDK external memory
// (transports/raw/external_memory.*: rte_extmem_register + rte_dev_dma_map). Layer "memory":
// includes sys and config only.
#include <cstddef>
#include <memory>
#include <string>

#include "config/buffer_memory.hpp"

namespace spiral::memory {

enum Registration : unsigned {
  kRegisterNone = 0,
  kRegisterCuda = 1,  // host_pinned: cudaHostRegister (mapped); device: implied
};

struct Request {
  BufferMemory kind = BufferMemory::host;
  size_t bytes = 0;
  std::string what;  // names the buffer in errors ("queue pair 0", "GPU staging buffer")
  unsigned registrations = kRegisterNone;
};

class Region {
 public:
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region();

  BufferMemory kind() const { return kind_; }
  // The CPU's address; null for device memory.
  std::byte* data() const { return host_; }
  size_t size() const { return size_; }      // bytes asked for
  size_t mapped() const { return mapped_; }  // whole pages (host kinds), what registrations cover
  // The GPU's address: device memory, or host_pinned memory registered with CUDA; else null.
  std::byte* device_pointer() const { return device_; }
  bool cuda_registered() const { return cuda_registered_; }

 private:
  friend std::unique_ptr<Region> allocate(const Request& request);
  Region() = default;

  BufferMemory kind_ = BufferMemory::host;
  std::byte* host_ = nullptr;
  std::byte* device_ = nullptr;
  size_t size_ = 0, mapped_ = 0;
  bool cuda_registered_ = false;
};

// Allocates (and touches) `bytes` of the kind. Throws BadInput when the kind cannot be had here
// (device without CUDA or a GPU, a lock refused by RLIMIT_MEMLOCK: the message says what to
// raise), RunFailure on other system errors.
std::unique_ptr<Region> allocate(const Request& request);

// "the locked-memory limit RLIMIT_MEMLOCK (ulimit -l) is 8192 KiB and this process lacks
// CAP_IPC_LOCK: ...": the part of a lock or registration refusal that says what to raise.
std::string memlock_explanation();

}  // namespace spiral::memory
