#pragma once
// A raw port as the cell names it: a PCI address (the NIC's port or an SR-IOV VF) or a DPDK
// virtual device string. Pure syntax, so bad input is refused before DPDK starts.
#include <string>
#include <vector>

namespace spiral {

struct PortSpec {
  enum class Kind { pci, vdev };
  Kind kind = Kind::vdev;
  std::string name;     // DPDK device name: "0000:01:00.0" or "net_memif0"
  std::string driver;   // vdev driver ("net_memif"); empty for PCI
  std::string devargs;  // what DPDK probes: the text without spiral's own netns=
  std::string netns;    // spiral extension for veth tests: probe and configure inside /var/run/netns/NAME
  bool is_virtual() const { return kind == Kind::vdev; }
};

// The virtual drivers this build accepts (all in Debian's DPDK 22.11).
const std::vector<std::string>& known_vdev_drivers();

// Throws BadInput naming `key` for an empty string, a malformed PCI address or an unknown vdev.
PortSpec parse_port(const std::string& key, const std::string& text);

// "env:NAME" (the operator's way to name a port a device plugin allocated): the first entry of
// the comma-separated list in $NAME (PCIDEVICE_* holds one or more PCI addresses). Any other
// text is returned as it is. Throws BadInput when NAME is unset or empty.
std::string resolve_port_source(const std::string& key, const std::string& text);

}  // namespace spiral
