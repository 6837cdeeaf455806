#include "output/ready.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "control/rendezvous.hpp"
#include "sys/errors.hpp"

namespace spiral {

void announce_ready(const Cell& cell, std::ostream& out) {
  const std::string line = nlohmann::json{{"event", "ready"},
                                          {"transport", cell.kind->name},
                                          {"bind_address", cell.bind_address},
                                          {"control_port", cell.control_port},
                                          {"base_port", cell.base_port},
                                          {"pairs", cell.pairs},
                                          {"pid", getpid()}}
                               .dump();
  out << line << std::endl;  // flushed: a supervisor may be reading the pipe
  if (!cell.ready_file.empty()) write_ready_file(cell.ready_file, line);
  announce_to_rendezvous(cell);
}

void write_ready_file(const std::string& path, const std::string& line) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << line << "\n";
    if (!f) throw BadInput("cannot write ready_file \"" + path + "\"");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw BadInput(errno_message("cannot write ready_file \"" + path + "\"", errno));
}

}  // namespace spiral
