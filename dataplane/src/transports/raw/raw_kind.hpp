#pragma once
// The raw bench kind (raw_kind.cpp), listed in kinds/registry.cpp.
#include "kinds/bench_kind.hpp"

namespace spiral::raw {

const BenchKind& kind();

}  // namespace spiral::raw
