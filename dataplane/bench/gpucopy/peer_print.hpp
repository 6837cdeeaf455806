#pragma once
// spiral-gpucopy-bench's tables of the peer matrices and the host aggregate.
#include <cstdio>

#include "transports/gpucopy/peer_spec.hpp"

namespace spiral::gpucopy {

void print_peers(std::FILE* out, const PeerResult& r);

}  // namespace spiral::gpucopy
