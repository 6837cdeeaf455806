#pragma once
// GPU side of the correctness check: fill a rank's input and count the elements of a result that
// differ from expectation.hpp's values. C++17 (compiled by nvcc and by the host compiler).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "transports/nccl/expectation.hpp"

namespace spiral::nccl::cuda {

// data[i] = input_value(op, rank, i, seed) as type t, for i < count.
void fill_inputs(void* data, ElementType t, ReduceOp op, int rank, uint64_t count, uint32_t seed, cudaStream_t stream);

// *wrong (device memory) += the number of i < count where data[i] is not expected_value(shape, i)
// within tolerance(t, shape.op); indices the operation leaves undefined are skipped.
void count_wrong(const void* data, ElementType t, const CheckShape& shape, uint64_t count,
                 unsigned long long* wrong, cudaStream_t stream);

}  // namespace spiral::nccl::cuda
