#pragma once
// The tcp bench kind (tcp_kind.cpp), listed in kinds/registry.cpp.
#include "kinds/bench_kind.hpp"

namespace spiral::tcp {

const BenchKind& kind();

}  // namespace spiral::tcp
