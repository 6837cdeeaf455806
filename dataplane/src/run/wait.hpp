#pragma once
#include <thread>

#include "sys/errors.hpp"
#include "sys/signals.hpp"
#include "control/channel.hpp"
#include "engine/engine.hpp"
#include "output/progress.hpp"
#include "sys/clock.hpp"

namespace spiral {

// Lets the run go on until `until`, checking every 20 ms for a signal, a worker error or a
// peer that closed the control connection, so a broken run ends at once and says why; prints
// the progress line when one is due.
inline void wait_running(Clock::time_point until, const Engine& engine, ControlChannel& control,
                         ProgressLine* progress = nullptr) {
  for (;;) {
    throw_if_signalled();
    if (auto failure = engine.failure()) throw RunFailure(*failure);
    control.require_open();
    const auto now = Clock::now();
    if (progress && progress->due(now)) progress->print(now, engine.counters());
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(until - now, Millis(20)));
  }
}

}  // namespace spiral
