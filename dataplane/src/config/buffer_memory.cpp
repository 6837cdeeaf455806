#include "config/buffer_memory.hpp"

#include "config/object_reader.hpp"

namespace spiral {

const char* to_string(BufferMemory m) {
  switch (m) {
    case BufferMemory::host: return "host";
    case BufferMemory::host_pinned: return "host_pinned";
    case BufferMemory::device: return "device";
  }
  return "?";
}

BufferMemory parse_buffer_memory(const ObjectReader& r) {
  return r.one_of("memory", BufferMemory::host,
                  {{"host", BufferMemory::host}, {"host_pinned", BufferMemory::host_pinned},
                   {"device", BufferMemory::device}});
}

}  // namespace spiral
