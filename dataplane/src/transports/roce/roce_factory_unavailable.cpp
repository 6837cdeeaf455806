// Built without rdma-core: parse_cell already refuses transport roce, so this is never reached
// from the command line; it keeps the factory linkable.
#include "sys/errors.hpp"
#include "transports/roce/roce_factory.hpp"

namespace spiral::roce {

std::unique_ptr<Engine> make_engine(const Cell&, Direction) {
  throw BadInput("transport roce: this spiral-dataplane was built without rdma-core (libibverbs)");
}

}  // namespace spiral::roce
