#pragma once
// Runs the calling thread inside a named network namespace (/var/run/netns/NAME, as `ip netns`
// makes them) for as long as the guard lives. The raw transport probes and configures a veth's
// af_packet/af_xdp port inside its namespace; the sockets stay there after the thread returns.
#include <string>

namespace spiral::raw {

class NetnsGuard {
 public:
  explicit NetnsGuard(const std::string& name);  // empty: no change
  ~NetnsGuard();
  NetnsGuard(const NetnsGuard&) = delete;
  NetnsGuard& operator=(const NetnsGuard&) = delete;

 private:
  int home_ = -1;  // this thread's namespace before
};

}  // namespace spiral::raw
