#pragma once
// The gpucopy bench kind (run mode ranks, one local rank): host<->device copies per GPU.
#include "kinds/bench_kind.hpp"

namespace spiral::gpucopy {
const BenchKind& kind();
}
