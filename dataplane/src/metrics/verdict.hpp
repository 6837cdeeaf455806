#pragma once
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
Verdict judge(const Cell& cell, const RunResult& r);

}  // namespace spiral
