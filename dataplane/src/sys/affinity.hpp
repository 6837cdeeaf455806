#pragma once
// Thread pinning. Pinned threads run on one core; unpinned ones get the process's start-up
// mask back, so they never inherit the master thread's pinning.
#include <string>
#include <vector>

namespace spiral {

void remember_startup_affinity();  // once, first thing in main()
std::vector<int> startup_cores();

// Pins the calling thread to `core`, or restores the start-up mask when core < 0.
void pin_current_thread(int core);

// BadInput naming `what` when a core is outside the start-up mask (e.g. isolcpus not given to us).
void require_cores_available(const std::vector<int>& cores, const std::string& what);

}  // namespace spiral
