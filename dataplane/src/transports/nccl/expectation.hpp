#pragma once
// The correctness check (nccl-tests' -c): what every rank puts in its send buffer and what every
// rank must find in its receive buffer afterwards, as pure functions of (rank, index). Host and
// device share this header: the GPU fills and checks buffers with it, the unit tests prove it
// against a CPU model of each operation. C++17 (nvcc compiles it).
//
// Inputs are small non-negative integers (0..7; 1 or 2 for prod) so sums and products of up to
// 36 ranks are exact in every type, bfloat16 included; integer types wrap as NCCL's do. They are
// hashed from (rank, index, seed), not linear in them: a linear formula mod 8 repeats every 8
// ranks and every 8 elements, so at several ranks another rank's slice, or another slice of the
// right rank (reduce_scatter, alltoall with counts a multiple of 8), would look correct.
#include <cstdint>

#include "transports/nccl/identifiers.hpp"

#if defined(__CUDACC__)
#define SPIRAL_HD __host__ __device__
#else
#define SPIRAL_HD
#endif

namespace spiral::nccl {

// One rank's view of one checked operation.
struct CheckShape {
  Collective collective = Collective::all_reduce;
  ReduceOp op = ReduceOp::sum;
  int nranks = 1;
  int rank = 0;
  int root = 0;
  uint64_t param = 0;  // the count passed to NCCL (Counts::param)
  uint32_t seed = 0;   // varies the data between checks
};

// splitmix64's finaliser: every input bit reaches every output bit.
SPIRAL_HD inline uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// What rank `rank` holds at index `index` of its send buffer.
SPIRAL_HD inline double input_value(ReduceOp op, int rank, uint64_t index, uint32_t seed) {
  const uint64_t at = mix(index * 0x9e3779b97f4a7c15ULL + seed);
  if (op == ReduceOp::prod) {
    // at most one rank of each pair (2k, 2k+1) doubles, which one and whether varying with the
    // index: products vary from element to element and stay at most 2^ceil(n/2)
    const uint64_t pair = (static_cast<uint64_t>(rank) / 2) % 32;
    const bool doubles = ((at >> pair) & 1) && ((at >> (32 + pair)) & 1) == (static_cast<uint64_t>(rank) & 1);
    return doubles ? 2.0 : 1.0;
  }
  return static_cast<double>(mix(at ^ (static_cast<uint64_t>(rank) + 1) * 0xd6e8feb86659fd93ULL) % 8);
}

// The reduction over all ranks of their inputs at `index`; avg of integers truncates, as NCCL's.
SPIRAL_HD inline double reduced_value(ReduceOp op, int nranks, uint64_t index, uint32_t seed, bool integer) {
  double acc = input_value(op, 0, index, seed);
  for (int r = 1; r < nranks; ++r) {
    const double v = input_value(op, r, index, seed);
    switch (op) {
      case ReduceOp::sum: case ReduceOp::avg: acc += v; break;
      case ReduceOp::prod: acc *= v; break;
      case ReduceOp::max: acc = v > acc ? v : acc; break;
      case ReduceOp::min: acc = v < acc ? v : acc; break;
    }
  }
  if (op == ReduceOp::avg) {
    acc /= nranks;
    if (integer) acc = static_cast<double>(static_cast<int64_t>(acc));
  }
  return acc;
}

struct Expected {
  bool checked = false;  // false where the operation leaves the buffer undefined (reduce off the root)
  double value = 0;
};

// What rank s.rank must hold at index `index` of its receive buffer (Counts::recv elements).
SPIRAL_HD inline Expected expected_value(const CheckShape& s, uint64_t index, bool integer) {
  const uint64_t slot = s.param ? index / s.param : 0;  // the rank a gathered slot came from
  const uint64_t within = s.param ? index % s.param : 0;
  switch (s.collective) {
    case Collective::send_recv:
      return {true, input_value(s.op, (s.rank + s.nranks - 1) % s.nranks, index, s.seed)};
    case Collective::all_gather:
      return {true, input_value(s.op, static_cast<int>(slot), within, s.seed)};
    case Collective::all_reduce:
      return {true, reduced_value(s.op, s.nranks, index, s.seed, integer)};
    case Collective::broadcast:
      return {true, input_value(s.op, s.root, index, s.seed)};
    case Collective::reduce:
      if (s.rank != s.root) return {false, 0};
      return {true, reduced_value(s.op, s.nranks, index, s.seed, integer)};
    case Collective::reduce_scatter:
      return {true, reduced_value(s.op, s.nranks, static_cast<uint64_t>(s.rank) * s.param + index, s.seed, integer)};
    case Collective::all_to_all:
      return {true, input_value(s.op, static_cast<int>(slot), static_cast<uint64_t>(s.rank) * s.param + within, s.seed)};
    case Collective::all_to_all_v:
      // checked one received segment at a time: root names the peer it came from, param where
      // the segment sat in that peer's send buffer (alltoallv_segments)
      return {true, input_value(s.op, s.root, s.param + index, s.seed)};
  }
  return {false, 0};
}

// Largest accepted |got - expected|: exact for integers and for the exact integer sums; avg of
// floating types divides, so it gets the type's rounding.
SPIRAL_HD inline double tolerance(ElementType t, ReduceOp op) {
  if (op != ReduceOp::avg) return 0;
  switch (t) {
    case ElementType::float16: return 1e-2;
    case ElementType::bfloat16: return 5e-2;
    case ElementType::float32: return 1e-5;
    case ElementType::float64: return 1e-12;
    default: return 0;
  }
}

}  // namespace spiral::nccl
