#include "sys/errors.hpp"

#include <cstring>

namespace spiral {

std::string errno_message(const std::string& what, int err) { return what + ": " + std::strerror(err); }

}  // namespace spiral
