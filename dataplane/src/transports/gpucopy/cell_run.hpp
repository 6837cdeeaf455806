#pragma once
// The copy bench as the ranks run driver calls it (one local rank going through the pod's GPUs):
// with CUDA cuda/cell_run.cpp, without cell_run_unavailable.cpp.
#include <nlohmann/json.hpp>

#include "config/cell.hpp"

namespace spiral::gpucopy {

nlohmann::json run_copy_cell(const Cell& c, uint32_t local, void (*listening)(const Cell& c));

}  // namespace spiral::gpucopy
