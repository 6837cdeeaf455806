// Builds without NCCL (SPIRAL_WITH_NCCL off, or no CUDA): the nccl kind parses, and refuses to run.
#include "sys/errors.hpp"
#include "transports/nccl/cell_rank.hpp"

namespace spiral::nccl {

nlohmann::json run_cell_rank(const Cell&, uint32_t, void (*)(const Cell&)) {
  throw BadInput("transport nccl: this spiral-dataplane was built without NCCL (CUDA build with SPIRAL_WITH_NCCL; "
                 "hack/nccl.sh provides the library)");
}

}  // namespace spiral::nccl
