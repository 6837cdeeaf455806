#pragma once
// The flags of a size sweep (config/size_sweep.hpp), shared by the kinds that measure one
// (nccl, gpucopy) so they spell and explain them alike. The letters are nccl-tests' options.
#include <vector>

#include "kinds/bench_kind.hpp"

namespace spiral {

inline void add_size_sweep_flags(std::vector<KindFlag>& flags) {
  using T = KindFlag::Type;
  flags.insert(flags.end(), {
      {"--min-bytes", "min_bytes", T::integer, "smallest size of the sweep (nccl-tests -b)"},
      {"--max-bytes", "max_bytes", T::integer, "largest size of the sweep (nccl-tests -e)"},
      {"--step-factor", "step_factor", T::integer, "size factor between steps (nccl-tests -f)"},
      {"--iterations", "iterations", T::integer, "timed operations per size (nccl-tests -n)"},
      {"--warmup-iterations", "warmup_iterations", T::integer, "untimed operations per size first (nccl-tests -w)"},
  });
}

}  // namespace spiral
