#pragma once
// The one interface every transport implements, sender and receiver alike. The run driver
// (src/run) knows nothing of sockets, verbs or mbufs: it opens, starts, moves the phase, reads
// counters and stops.
#include <optional>
#include <string>
#include <vector>

#include "engine/counters.hpp"
#include "engine/phase.hpp"

namespace spiral {

class Engine {
 public:
  virtual ~Engine() = default;

  // Creates and binds/connects everything; allocates every buffer the hot loops use.
  // Throws BadInput for user-fixable problems (port in use), RunFailure otherwise.
  virtual void open() = 0;
  // Starts one worker per queue, each pinned to its core; returns at once.
  virtual void start() = 0;
  // Senders send in warmup and measure and stop at drain; receivers bucket by phase.
  virtual void set_phase(Phase phase) = 0;
  // Snapshot of every queue's counters; final once stop() returned.
  virtual std::vector<QueueCounters> counters() const = 0;
  // The first error a worker hit, if any.
  virtual std::optional<std::string> failure() const = 0;
  // Asks the workers to finish and joins them. Idempotent.
  virtual void stop() = 0;
};

}  // namespace spiral
