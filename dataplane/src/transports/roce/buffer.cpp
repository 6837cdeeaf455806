#include "transports/roce/buffer.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <cerrno>
#include <fstream>
#include <utility>

#include "sys/errors.hpp"

namespace spiral::roce {

namespace {

std::string size_text(size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

bool has_ipc_lock() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> 14) & 1;  // CAP_IPC_LOCK
  }
  return false;
}

}  // namespace

std::string memlock_explanation() {
  rlimit limit{};
  getrlimit(RLIMIT_MEMLOCK, &limit);
  const std::string value =
      limit.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(limit.rlim_cur / 1024) + " KiB";
  return "the locked-memory limit RLIMIT_MEMLOCK (ulimit -l) is " + value +
         (has_ipc_lock() ? " (this process has CAP_IPC_LOCK, so the limit is not what refused it)"
                         : " and this process lacks CAP_IPC_LOCK: raise the limit (unlimited memlock for the pod) or "
                           "grant IPC_LOCK, or use smaller messages or depths");
}

RegisteredBuffer::RegisteredBuffer(ibv_pd* pd, size_t bytes, BufferMemory memory, int access,
                                   const std::string& what)
    : size_(bytes) {
  mapped_ = (bytes + 4095) / 4096 * 4096;
  void* p = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) throw RunFailure(errno_message("roce: mmap of " + size_text(mapped_) + " for " + what, errno));
  data_ = static_cast<char*>(p);
  if (memory == BufferMemory::host_pinned && ::mlock(data_, mapped_) != 0) {
    const int err = errno;
    release();
    throw BadInput(errno_message("roce: locking " + size_text(mapped_) + " of host_pinned memory for " + what, err) +
                   ": " + memlock_explanation());
  }
  errno = 0;
  mr_.reset(ibv_reg_mr(pd, data_, mapped_, access));
  if (!mr_) {
    const int err = errno ? errno : ENOMEM;
    release();
    if (err == ENOMEM || err == EPERM || err == EAGAIN)
      throw BadInput(errno_message("roce: memory registration of " + size_text(mapped_) + " for " + what +
                                       " refused (ibv_reg_mr)",
                                   err) +
                     ": " + memlock_explanation());
    throw RunFailure(errno_message("roce: ibv_reg_mr of " + size_text(mapped_) + " for " + what, err));
  }
}

RegisteredBuffer::RegisteredBuffer(RegisteredBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)),
      mr_(std::move(other.mr_)) {}

RegisteredBuffer& RegisteredBuffer::operator=(RegisteredBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    mr_ = std::move(other.mr_);
  }
  return *this;
}

RegisteredBuffer::~RegisteredBuffer() { release(); }

void RegisteredBuffer::release() noexcept {
  mr_.reset();  // deregister before the pages go
  if (data_) ::munmap(data_, mapped_);
  data_ = nullptr;
}

}  // namespace spiral::roce
