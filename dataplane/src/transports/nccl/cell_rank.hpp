#pragma once
// One local rank of an nccl cell, as the ranks run driver calls it (BenchKind::run_rank): the
// cell's options become a RankRun, its outcome the JSON the driver collects. With NCCL:
// cuda/cell_rank.cpp; without: cell_rank_unavailable.cpp refuses.
#include <nlohmann/json.hpp>

#include "config/cell.hpp"

namespace spiral::nccl {

nlohmann::json run_cell_rank(const Cell& c, uint32_t local, void (*listening)(const Cell& c));

}  // namespace spiral::nccl
