// Linked instead of raw_loopback.cpp when the build has no DPDK (SPIRAL_WITH_DPDK=OFF or no
// libdpdk-dev). parse_cell refuses transport raw first; this is the backstop.
#include "app/errors.hpp"
#include "transports/raw/raw_loopback.hpp"

namespace spiral::raw {

RunResult run_loopback(const Cell&) {
  throw BadInput("transport raw needs DPDK: this spiral-dataplane was built without it");
}

}  // namespace spiral::raw
