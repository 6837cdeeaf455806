// make_burst_work() of a build without CUDA. The cell parser already refuses GPU forward work
// in such a build; this is the second line for sessions constructed another way.
#include "gpu/forward_work.hpp"
#include "sys/errors.hpp"

namespace spiral::gpu {

std::unique_ptr<BurstWork> make_burst_work(const BurstWorkConfig&) {
  throw BadInput("forward_work on the GPU needs a GPU: this spiral-dataplane was built without CUDA");
}

void require_burst_work_gpu(const std::string& what) {
  throw BadInput(what + " needs a GPU: this spiral-dataplane was built without CUDA");
}

std::string burst_work_device_bus_id() { return ""; }

}  // namespace spiral::gpu
