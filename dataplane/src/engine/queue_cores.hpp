#pragma once
#include <vector>

#include "config/cell.hpp"

namespace spiral {

// Core of each queue's thread: pair i on list[i % size], -1 (unpinned) for an empty list.
inline std::vector<int> queue_cores(const std::vector<int>& list, uint32_t queues) {
  std::vector<int> cores;
  for (uint32_t q = 0; q < queues; ++q) cores.push_back(CoreMap::for_queue(list, q));
  return cores;
}

}  // namespace spiral
