#pragma once
// The enumerations shared by the pure code (C++20) and the CUDA code (C++17): the operation,
// the element type and the reduction. Their descriptions live in collective.hpp and
// element_types.hpp. ElementType and ReduceOp follow nccl.h's ncclDataType_t and ncclRedOp_t
// order (checked by static_asserts in the NCCL code).
namespace spiral::nccl {

enum class Collective { send_recv, all_gather, all_reduce, broadcast, reduce, reduce_scatter, all_to_all,
                        all_to_all_v };
enum class ElementType { int8, uint8, int32, uint32, int64, uint64, float16, float32, float64, bfloat16 };
enum class ReduceOp { sum, prod, max, min, avg };

}  // namespace spiral::nccl
