#pragma once
#include <cstdint>
#include <memory>

#include "config/cell.hpp"
#include "engine/engine.hpp"

namespace spiral {

enum class Direction { send, receive };

// The engine of `cell.transport` for one direction. run_id tags the datagrams of this run.
std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction, uint32_t run_id);

}  // namespace spiral
