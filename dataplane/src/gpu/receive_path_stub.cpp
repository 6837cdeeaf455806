// open_receive_path() of a build without CUDA. The cell parser already refuses GPU workloads
// in such a build; this is the second line for engines constructed another way.
#include "sys/errors.hpp"
#include "config/cell_json.hpp"
#include "gpu/receive_path.hpp"

namespace spiral::gpu {

std::unique_ptr<ReceivePath> open_receive_path(const Cell& cell) {
  throw BadInput(std::string("workload ") + to_string(cell.workload) +
                 " needs a GPU: this spiral-dataplane was built without CUDA");
}

}  // namespace spiral::gpu
