// Linked instead of raw_session.cpp when the build has no DPDK (SPIRAL_WITH_DPDK=OFF or no
// libdpdk-dev). parse_cell refuses transport raw first; this is the backstop.
#include "sys/errors.hpp"
#include "transports/raw/raw_session.hpp"

namespace spiral::raw {

std::unique_ptr<LocalSession> make_session(const Cell&, uint32_t) {
  throw BadInput("transport raw needs DPDK: this spiral-dataplane was built without it");
}

}  // namespace spiral::raw
