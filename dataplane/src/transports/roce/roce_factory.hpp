#pragma once
#include <memory>

#include "config/cell.hpp"
#include "engine/engine.hpp"
#include "engine/engine_factory.hpp"

namespace spiral::roce {

// The client (Direction::send) is the requester: it posts the sends, writes or reads. The server
// is the responder: it posts receives, or exposes the memory that is written or read.
std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction);

}  // namespace spiral::roce
