#pragma once
// The device code of the GPU-to-GPU copies (peer_kernels.cu, C++17 for nvcc): the SM copy and
// the gate that holds a stream until the host releases every stream at once.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace spiral::gpucopy::kernels {

// dst <- src, `bytes`, by a kernel on the stream's GPU: 16-byte vectors where both pointers
// allow, the rest byte by byte. dst or src may be a peer GPU's memory (peer access enabled).
// blocks x 512 threads. Returns the launch's error.
cudaError_t copy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream);

// Spins on the stream until *flag (mapped host memory) is non-zero, or about 1 s has passed,
// so that copies queued behind it on several streams start together. Returns the launch's error.
cudaError_t hold(const volatile int* flag, cudaStream_t stream);

}  // namespace spiral::gpucopy::kernels
