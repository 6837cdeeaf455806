#include "memory/region.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <cerrno>
#include <fstream>

#include "memory/cuda_memory.hpp"
#include "sys/errors.hpp"

namespace spiral::memory {
namespace {

constexpr size_t kPage = 4096;

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

std::unique_ptr<Region> allocate(const Request& request) {
  std::unique_ptr<Region> r(new Region());
  r->kind_ = request.kind;
  r->size_ = request.bytes;
  if (request.kind == BufferMemory::device) {
    r->mapped_ = request.bytes;
    r->device_ = cuda_allocate_device(request.bytes, request.what);
    r->cuda_registered_ = true;
    return r;
  }
  r->mapped_ = (request.bytes + kPage - 1) / kPage * kPage + (request.bytes == 0 ? kPage : 0);
  void* p = ::mmap(nullptr, r->mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) throw RunFailure(errno_message("mmap of " + size_text(r->mapped_) + " for " + request.what, errno));
  r->host_ = static_cast<std::byte*>(p);
  if (request.kind == BufferMemory::host_pinned) {
    if (::mlock(r->host_, r->mapped_) != 0)
      throw BadInput(errno_message("locking " + size_text(r->mapped_) + " of host_pinned memory for " + request.what,
                                   errno) +
                     ": " + memlock_explanation());
    if (request.registrations & kRegisterCuda) {
      r->device_ = cuda_register_host(r->host_, r->mapped_, request.what);
      r->cuda_registered_ = true;
    }
  }
  return r;
}

Region::~Region() {
  // registrations go before the pages they cover
  if (kind_ == BufferMemory::device) {
    if (device_) cuda_free_device(device_);
    return;
  }
  if (cuda_registered_) cuda_unregister_host(host_);
  if (host_) ::munmap(host_, mapped_);  // unlocks too
}

}  // namespace spiral::memory
