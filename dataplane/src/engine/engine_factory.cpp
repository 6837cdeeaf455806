#include "engine/engine_factory.hpp"

#include "sys/errors.hpp"

namespace spiral {

std::unique_ptr<Engine> make_engine(const Cell& cell, Direction direction, uint32_t run_id) {
  if (!cell.kind->make_engine) throw BadInput("transport " + cell.kind->name + " has only the loopback role");
  return cell.kind->make_engine(cell, direction, run_id);
}

}  // namespace spiral
