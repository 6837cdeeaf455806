#include "sys/affinity.hpp"

#include <pthread.h>
#include <sched.h>

#include <cerrno>

#include "sys/errors.hpp"

namespace spiral {
namespace {

cpu_set_t& startup_mask() {
  static cpu_set_t mask = [] {
    cpu_set_t m;
    CPU_ZERO(&m);
    if (sched_getaffinity(0, sizeof m, &m) != 0) CPU_SET(0, &m);
    return m;
  }();
  return mask;
}

std::string join(const std::vector<int>& cores) {
  std::string s;
  for (int c : cores) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

}  // namespace

void remember_startup_affinity() { (void)startup_mask(); }

std::vector<int> startup_cores() {
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &startup_mask())) cores.push_back(c);
  return cores;
}

void pin_current_thread(int core) {
  cpu_set_t mask;
  if (core < 0) {
    mask = startup_mask();
  } else {
    CPU_ZERO(&mask);
    CPU_SET(core, &mask);
  }
  int rc = pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
  if (rc != 0) throw RunFailure(errno_message("pin thread to core " + std::to_string(core), rc));
}

void require_cores_available(const std::vector<int>& cores, const std::string& what) {
  for (int c : cores) {
    if (c >= 0 && (c >= CPU_SETSIZE || !CPU_ISSET(c, &startup_mask())))
      throw BadInput(what + ": core " + std::to_string(c) + " is not available to this process (allowed: " +
                     join(startup_cores()) + ")");
  }
}

}  // namespace spiral
