#pragma once
// What one rank of an operation holds for one size (collective.hpp's table, alltoallv.hpp).
#include <cstddef>

namespace spiral::nccl {

// Element counts of one rank for one size (nccl-tests' GetCollByteCount).
struct Counts {
  size_t send = 0;                 // elements in the send buffer
  size_t recv = 0;                 // elements in the receive buffer
  size_t param = 0;                // the count passed to NCCL
  size_t send_inplace_offset = 0;  // in place: the send data starts at recv + offset * rank
  size_t recv_inplace_offset = 0;  // in place: the result starts at recv + offset * rank
};

}  // namespace spiral::nccl
