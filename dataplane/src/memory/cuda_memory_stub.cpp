// The memory provider's CUDA calls in a build without CUDA: host and host_pinned memory work,
// anything that needs CUDA is refused.
#include "memory/cuda_memory.hpp"

#include "sys/errors.hpp"

namespace spiral::memory {

std::byte* cuda_register_host(std::byte*, size_t, const std::string& what) {
  throw BadInput(what + ": registering host_pinned memory with CUDA needs CUDA: this spiral-dataplane was built "
                        "without it");
}
void cuda_unregister_host(std::byte*) noexcept {}
std::byte* cuda_allocate_device(size_t, const std::string& what) {
  throw BadInput(what + ": device memory needs CUDA: this spiral-dataplane was built without it (use host or "
                        "host_pinned)");
}
void cuda_free_device(std::byte*) noexcept {}

}  // namespace spiral::memory
