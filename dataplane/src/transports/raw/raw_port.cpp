#include "transports/raw/raw_port.hpp"

#include <cstdlib>
#include <regex>

#include "sys/errors.hpp"
#include "transports/raw/raw_options.hpp"

namespace spiral {

const std::vector<std::string>& known_vdev_drivers() {
  static const std::vector<std::string> drivers = {"net_af_packet", "net_af_xdp", "net_memif", "net_ring",
                                                   "net_null",      "net_tap",    "net_pcap"};
  return drivers;
}

namespace {

[[noreturn]] void refuse(const std::string& key, const std::string& what) {
  throw BadInput("cell: \"" + key + "\" " + what);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Splits "name,k=v,k=v"; removes spiral's netns=NAME, keeps the rest for DPDK.
void split_devargs(const std::string& key, const std::string& text, PortSpec& p) {
  const size_t comma = text.find(',');
  p.name = text.substr(0, comma);
  std::string kept = p.name;
  size_t pos = comma;
  while (pos != std::string::npos) {
    const size_t next = text.find(',', pos + 1);
    const std::string arg = text.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    if (arg.rfind("netns=", 0) == 0) {
      p.netns = arg.substr(6);
      if (p.netns.empty() || p.netns.find('/') != std::string::npos || p.netns[0] == '.')
        refuse(key, "has a bad netns=\"" + p.netns + "\": a name under /var/run/netns");
    } else if (arg.empty()) {
      refuse(key, "has an empty device argument: \"" + text + "\"");
    } else {
      kept += "," + arg;
    }
    pos = next;
  }
  p.devargs = kept;
}

}  // namespace

std::string resolve_port_source(const std::string& key, const std::string& text) {
  if (text.rfind("env:", 0) != 0) return text;
  const std::string name = text.substr(4);
  const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
  std::string first = value ? std::string(value).substr(0, std::string(value).find(',')) : "";
  first.erase(0, first.find_first_not_of(" \t"));
  first.erase(first.find_last_not_of(" \t") + 1);
  if (first.empty())
    refuse(key, "is " + text + ", but $" + name + " is " + (value ? "empty" : "not set") +
                    " (a device plugin sets PCIDEVICE_* in the container it allocated the device to)");
  return first;
}

PortSpec parse_port(const std::string& key, const std::string& text) {
  if (text.empty())
    refuse(key, "is required for transport raw: a PCI address (0000:01:00.0) or a DPDK vdev (net_ring0)");
  if (text.find_first_of(" \t\n'\"") != std::string::npos) refuse(key, "must not contain spaces or quotes");
  PortSpec p;
  split_devargs(key, text, p);
  // Anything that starts like a bus address is held to the PCI syntax: domain:bus:device.function.
  static const std::regex pci_like("^[0-9a-fA-F]{1,4}:[0-9a-fA-F:.]*$");
  static const std::regex pci("^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[01][0-9a-fA-F]\\.[0-7]$");
  if (std::regex_match(p.name, pci_like)) {
    if (!std::regex_match(p.name, pci))
      refuse(key, "is a bad PCI address \"" + p.name + "\": expected DDDD:BB:DD.F, e.g. 0000:01:00.0");
    if (!p.netns.empty()) refuse(key, "netns= applies to virtual devices only");
    p.kind = PortSpec::Kind::pci;
    if (p.name.size() == 7) {  // BB:DD.F: DPDK names the device with its domain
      p.devargs = "0000:" + p.devargs;
      p.name = "0000:" + p.name;
    }
    return p;
  }
  static const std::regex vdev("^(net_[a-z_]+?)[0-9]+$");
  std::smatch m;
  if (!std::regex_match(p.name, m, vdev))
    refuse(key, "is neither a PCI address nor a DPDK vdev: \"" + p.name + "\" (e.g. net_ring0, net_memif0,role=server)");
  p.driver = m[1];
  bool known = false;
  for (const auto& d : known_vdev_drivers()) known = known || d == p.driver;
  if (!known) refuse(key, "names an unknown vdev driver \"" + p.driver + "\"; known: " + join(known_vdev_drivers()));
  p.kind = PortSpec::Kind::vdev;
  return p;
}

}  // namespace spiral
