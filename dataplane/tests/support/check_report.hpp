#pragma once
// The device checks' one way of saying what they checked (nccl_device_check,
// nccl_options_device_check, gpucopy_peer_check, gpucopy_local_check): a line per check, "ok" or
// "FAIL" and what, and the failures counted for the exit status.
#include <cstdio>
#include <string>

namespace spiral::testing {

inline int failures = 0;

inline void report(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

}  // namespace spiral::testing
