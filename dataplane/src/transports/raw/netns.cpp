#include "transports/raw/netns.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>

#include "sys/errors.hpp"

namespace spiral::raw {

NetnsGuard::NetnsGuard(const std::string& name) {
  if (name.empty()) return;
  const std::string path = "/var/run/netns/" + name;
  const int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) throw BadInput(errno_message("network namespace \"" + name + "\" (" + path + ")", errno));
  home_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home_ < 0 || ::setns(target, CLONE_NEWNET) != 0) {
    const int err = errno;
    ::close(target);
    if (home_ >= 0) ::close(home_);
    home_ = -1;
    throw BadInput(errno_message("enter network namespace \"" + name + "\" (needs root)", err));
  }
  ::close(target);
}

NetnsGuard::~NetnsGuard() {
  if (home_ < 0) return;
  ::setns(home_, CLONE_NEWNET);  // back home; cannot fail for a namespace we were in
  ::close(home_);
}

}  // namespace spiral::raw
