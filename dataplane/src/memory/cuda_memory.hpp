#pragma once
// The memory provider's CUDA calls: memory/cuda_memory_cuda.cpp in CUDA builds,
// memory/cuda_memory_stub.cpp (refusing with BadInput) otherwise.
#include <cstddef>
#include <string>

namespace spiral::memory {

// cudaHostRegister(mapped) of locked host pages; returns their device address.
std::byte* cuda_register_host(std::byte* host, size_t bytes, const std::string& what);
void cuda_unregister_host(std::byte* host) noexcept;
std::byte* cuda_allocate_device(size_t bytes, const std::string& what);
void cuda_free_device(std::byte* device) noexcept;

}  // namespace spiral::memory
