#pragma once
// The device code of a GPU's local tests (local_kernels.cu, C++17 for nvcc): SM read-only and
// write-only passes over the GPU's memory, and the pointer chase of the latency tests.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace spiral::gpucopy::kernels {

// Loads `bytes` (a multiple of 16) of src, blocks x 512 threads, 16-byte loads, folded by XOR.
// sink: two device words. With record the fold is XORed into sink[0] (a check of what was read);
// without, it is kept only far enough (sink[1], on a value that almost never occurs) that the
// loads cannot be dropped, and no atomics cost time.
cudaError_t read_only(const void* src, size_t bytes, int blocks, unsigned long long* sink, bool record,
                      cudaStream_t stream);
// Stores `value` into every 32-bit word of dst (`bytes` a multiple of 16), 16-byte stores.
cudaError_t write_only(void* dst, size_t bytes, uint32_t value, int blocks, cudaStream_t stream);
// One thread follows `loads` pointers from *start (each slot holds the address of the next) and
// stores where it ended in *end: every load waits on the one before.
cudaError_t chase(void* const* start, uint64_t loads, void** end, cudaStream_t stream);

}  // namespace spiral::gpucopy::kernels
