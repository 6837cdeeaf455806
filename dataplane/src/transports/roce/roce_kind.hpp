#pragma once
// The roce bench kind (roce_kind.cpp), listed in kinds/registry.cpp.
#include "kinds/bench_kind.hpp"

namespace spiral::roce {

const BenchKind& kind();

}  // namespace spiral::roce
