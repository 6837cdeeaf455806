#pragma once
#include <cstdint>

namespace spiral {

// Where a run is. Senders send in warmup and measure and stop at drain; receivers count what
// arrives into the bucket of the phase it belongs to.
enum class Phase : uint8_t { warmup = 0, measure = 1, drain = 2 };
constexpr int kPhaseCount = 3;

inline int index(Phase p) { return static_cast<int>(p); }

}  // namespace spiral
