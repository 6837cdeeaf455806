#pragma once
#include <optional>
#include <string>

#include "config/cell.hpp"
#include "metrics/run_result.hpp"

namespace spiral {

struct Verdict {
  RunState state = RunState::valid;
  std::string reason;
};

// Whether a run that completed measured what it claims: Valid, or Invalid with the first reason.
// (Failed is decided by the driver: a run that did not complete.)
// The shared checks, then the kind's (BenchKind::verdict).
Verdict judge(const Cell& cell, const RunResult& r);

// The checks of sequenced-datagram kinds: every datagram had the right length, and a paced
// sender held its target rate.
std::optional<std::string> datagram_verdict(const Cell& cell, const RunResult& r);

}  // namespace spiral
