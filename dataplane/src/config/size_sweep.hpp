#pragma once
// The message sizes of a cell (NCCL and copy benches), as nccl-tests' -b (min), -e (max),
// -f (factor) or -i (step bytes) produce them: min, then min*factor (or min+step) while <= max.
// Sizes parse like nccl-tests' (binary units: 8, 64K, 128M, 1G).
#include <cstdint>
#include <string_view>
#include <vector>

namespace spiral {

struct SizeSweep {
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 128ull << 20;
  uint64_t factor = 2;      // > 1: geometric steps
  uint64_t step_bytes = 0;  // used when factor == 1: arithmetic steps
};

// Throws BadInput when the sweep cannot produce sizes (min > max, no step) or would produce more
// than kMaxSweepSizes of them.
constexpr size_t kMaxSweepSizes = 4096;
std::vector<uint64_t> sizes(const SizeSweep& sweep);

// "8", "64K", "128M", "1G" (also lower case; K/M/G are 2^10, 2^20, 2^30). Throws BadInput.
uint64_t parse_size(std::string_view text);

}  // namespace spiral
