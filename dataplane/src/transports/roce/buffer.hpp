#pragma once
// One queue pair's registered memory: anonymous pages mapped and faulted in at open(), locked
// for host_pinned, registered with the NIC. Registration pins pages against RLIMIT_MEMLOCK
// unless the process has CAP_IPC_LOCK; a refusal names the limit and its value.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/buffer_memory.hpp"
#include "config/cell.hpp"
#include "transports/roce/verbs.hpp"

namespace spiral::roce {

class RegisteredBuffer {
 public:
  RegisteredBuffer() = default;
  // `access`: IBV_ACCESS_* flags; `what` names the buffer in errors ("queue pair 0").
  RegisteredBuffer(ibv_pd* pd, size_t bytes, BufferMemory memory, int access, const std::string& what);
  RegisteredBuffer(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer& operator=(RegisteredBuffer&& other) noexcept;
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;
  ~RegisteredBuffer();

  char* data() const { return data_; }
  size_t size() const { return size_; }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }
  uint64_t address() const { return reinterpret_cast<uintptr_t>(data_); }

 private:
  void release() noexcept;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;
  MemoryRegion mr_;
};

// "the locked-memory limit RLIMIT_MEMLOCK (ulimit -l) is 8192 KiB and this process lacks
// CAP_IPC_LOCK": the part of a registration refusal that says what to raise.
std::string memlock_explanation();

}  // namespace spiral::roce
