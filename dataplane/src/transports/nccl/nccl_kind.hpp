#pragma once
// The nccl bench kind (run mode ranks): NCCL collectives as nccl-tests measures them.
#include "kinds/bench_kind.hpp"

namespace spiral::nccl {
const BenchKind& kind();
}
