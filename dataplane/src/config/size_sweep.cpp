#include "config/size_sweep.hpp"

#include <charconv>
#include <string>

#include "sys/errors.hpp"

namespace spiral {

std::vector<uint64_t> sizes(const SizeSweep& sweep) {
  if (sweep.min_bytes == 0) throw BadInput("size sweep: the minimum size must be at least 1 byte");
  if (sweep.min_bytes > sweep.max_bytes)
    throw BadInput("size sweep: minimum " + std::to_string(sweep.min_bytes) + " B is above the maximum " +
                   std::to_string(sweep.max_bytes) + " B");
  if (sweep.factor == 0 || (sweep.factor == 1 && sweep.step_bytes == 0 && sweep.min_bytes != sweep.max_bytes))
    throw BadInput("size sweep: give a factor above 1 or a step in bytes");
  std::vector<uint64_t> out;
  for (uint64_t size = sweep.min_bytes; size <= sweep.max_bytes;) {
    if (out.size() == kMaxSweepSizes)
      throw BadInput("size sweep: more than " + std::to_string(kMaxSweepSizes) + " sizes; raise the factor or step");
    out.push_back(size);
    const uint64_t next = sweep.factor > 1 ? size * sweep.factor : size + sweep.step_bytes;
    if (next <= size) break;  // overflow or a zero step on a one-size sweep
    size = next;
  }
  return out;
}

uint64_t parse_size(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || rest == text.data())
    throw BadInput("size \"" + std::string(text) + "\": expected a number with an optional K, M or G");
  uint64_t unit = 1;
  if (rest != end) {
    switch (*rest) {
      case 'K': case 'k': unit = 1ull << 10; break;
      case 'M': case 'm': unit = 1ull << 20; break;
      case 'G': case 'g': unit = 1ull << 30; break;
      default: throw BadInput("size \"" + std::string(text) + "\": unknown unit (K, M or G)");
    }
    if (rest + 1 != end) throw BadInput("size \"" + std::string(text) + "\": trailing characters");
  }
  if (value > UINT64_MAX / unit) throw BadInput("size \"" + std::string(text) + "\" is too large");
  return value * unit;
}

}  // namespace spiral
