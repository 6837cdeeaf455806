#pragma once
// A switch read from the environment once (the GPU path's benchmark knobs: SPIRAL_GPU_GRAPH,
// SPIRAL_GPU_ONE_LAUNCH, SPIRAL_GPU_RING_MEMORY): unset or empty gives `fallback`, `on` gives
// true and `off` false; anything else is BadInput naming the variable and both words.
#include <cstdlib>
#include <string>

#include "sys/errors.hpp"

namespace spiral {

inline bool env_switch(const char* name, bool fallback, const std::string& on = "on", const std::string& off = "off") {
  const char* v = std::getenv(name);
  const std::string text = v ? v : "";
  if (text.empty()) return fallback;
  if (text == on) return true;
  if (text == off) return false;
  throw BadInput(std::string(name) + ": expected \"" + on + "\" or \"" + off + "\", got \"" + text + "\"");
}

}  // namespace spiral
