#include "sys/signals.hpp"

#include <atomic>
#include <csignal>
#include <string>

#include "sys/errors.hpp"

namespace spiral {

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_signal(int sig) { g_signal.store(sig); }
}  // namespace

void install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
}

int pending_signal() { return g_signal.load(); }

void throw_if_signalled() {
  if (int sig = pending_signal()) throw RunFailure("interrupted by signal " + std::to_string(sig));
}

}  // namespace spiral
