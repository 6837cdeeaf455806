#pragma once
#include <chrono>
#include <cstdint>

namespace spiral {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

inline int64_t millis_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<Millis>(b - a).count();
}

}  // namespace spiral
