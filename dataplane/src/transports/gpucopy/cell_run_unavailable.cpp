// Builds without CUDA: the gpucopy kind parses, and refuses to run.
#include "sys/errors.hpp"
#include "transports/gpucopy/cell_run.hpp"

namespace spiral::gpucopy {

nlohmann::json run_copy_cell(const Cell&, uint32_t, void (*)(const Cell&)) {
  throw BadInput("transport gpucopy: this spiral-dataplane was built without CUDA (SPIRAL_WITH_CUDA)");
}

}  // namespace spiral::gpucopy
