#include "engine/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace spiral {

TokenBucket::TokenBucket(double bytes_per_second, double burst_bytes, int64_t now_ns)
    : bytes_per_ns_(bytes_per_second / 1e9), burst_(burst_bytes), tokens_(0), last_ns_(now_ns) {}

void TokenBucket::refill(int64_t now_ns) {
  if (now_ns > last_ns_) {
    tokens_ = std::min(burst_, tokens_ + static_cast<double>(now_ns - last_ns_) * bytes_per_ns_);
    last_ns_ = now_ns;
  }
}

uint32_t TokenBucket::take(int64_t now_ns, uint32_t unit_bytes, uint32_t max_units) {
  refill(now_ns);
  auto units = static_cast<uint32_t>(std::min<double>(max_units, std::floor(tokens_ / unit_bytes)));
  tokens_ -= static_cast<double>(units) * unit_bytes;
  return units;
}

int64_t TokenBucket::wait_ns(int64_t now_ns, uint32_t unit_bytes) {
  refill(now_ns);
  double missing = unit_bytes - tokens_;
  return missing <= 0 ? 0 : static_cast<int64_t>(std::ceil(missing / bytes_per_ns_));
}

}  // namespace spiral
