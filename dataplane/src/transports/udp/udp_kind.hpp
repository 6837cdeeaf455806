#pragma once
// The udp bench kind (udp_kind.cpp), listed in kinds/registry.cpp.
#include "kinds/bench_kind.hpp"

namespace spiral::udp {

const BenchKind& kind();

}  // namespace spiral::udp
