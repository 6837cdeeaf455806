#pragma once
// One queue pair's registered memory: a Region from the memory provider (host pages faulted in
// at open(), locked for host_pinned) registered with the NIC's protection domain (ibv_reg_mr):
// the provider's ibverbs adapter. Locking and registration pin pages against RLIMIT_MEMLOCK
// unless the process has CAP_IPC_LOCK; a refusal names the limit and its value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "config/buffer_memory.hpp"
#include "memory/region.hpp"
#include "transports/roce/verbs.hpp"

namespace spiral::roce {

class RegisteredBuffer {
 public:
  RegisteredBuffer() = default;
  // `access`: IBV_ACCESS_* flags; `what` names the buffer in errors ("queue pair 0").
  RegisteredBuffer(ibv_pd* pd, size_t bytes, BufferMemory memory, int access, const std::string& what);
  RegisteredBuffer(RegisteredBuffer&& other) noexcept = default;
  RegisteredBuffer& operator=(RegisteredBuffer&& other) noexcept;
  ~RegisteredBuffer();

  char* data() const { return reinterpret_cast<char*>(region_->data()); }
  size_t size() const { return region_->size(); }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }
  uint64_t address() const { return reinterpret_cast<uintptr_t>(region_->data()); }

 private:
  void release() noexcept;
  std::unique_ptr<memory::Region> region_;
  MemoryRegion mr_;  // deregistered before region_ goes
};

using memory::memlock_explanation;

}  // namespace spiral::roce
