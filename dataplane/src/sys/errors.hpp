#pragma once
// The two kinds of failure the edge turns into exit codes: bad input (2) and run failure (1).
#include <stdexcept>
#include <string>

namespace spiral {

// Something the user can fix: a bad flag or cell key, a port in use, an unreachable server.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Something that went wrong while the benchmark ran.
struct RunFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "what: strerror(err)".
std::string errno_message(const std::string& what, int err);

}  // namespace spiral
