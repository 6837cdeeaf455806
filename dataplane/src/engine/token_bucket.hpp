#pragma once
// Software pacing: a byte-granular token bucket, shared by every paced sender (datagrams,
// frames, stream sends). Time comes in as an argument, so the unit tests drive it with a
// synthetic clock and the senders with the real one.
#include <cstdint>

namespace spiral {

class TokenBucket {
 public:
  // Refills at bytes_per_second, holds at most burst_bytes (callers keep it >= one unit), starts empty.
  TokenBucket(double bytes_per_second, double burst_bytes, int64_t now_ns);

  // How many units of unit_bytes may go now, at most max_units; those tokens are taken.
  uint32_t take(int64_t now_ns, uint32_t unit_bytes, uint32_t max_units);
  // Nanoseconds until one unit of unit_bytes is available (0 if it is now).
  int64_t wait_ns(int64_t now_ns, uint32_t unit_bytes);

 private:
  void refill(int64_t now_ns);

  double bytes_per_ns_;
  double burst_;
  double tokens_;
  int64_t last_ns_;
};

}  // namespace spiral
