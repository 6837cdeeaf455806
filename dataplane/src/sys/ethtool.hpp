#pragma once
// A netdev's driver statistics, driver identity and ring sizes through the ethtool ioctl
// (SIOCETHTOOL), as `ethtool -S` and `ethtool -i` / `-g` read them, plus the interface that
// holds a local IPv4 address. Nothing here judges the numbers (metrics/wire_proof.hpp does).
#include <netinet/in.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spiral {

// Every named driver statistic of `netdev` (ETHTOOL_GSSET_INFO, GSTRINGS, GSTATS). nullopt when
// the device has none or cannot be asked (no such device, loopback); *why says which (the
// caller names the device).
std::optional<std::map<std::string, uint64_t>> read_ethtool_stats(const std::string& netdev, std::string* why);

struct DriverInfo {
  std::string driver, version, firmware, bus_info;  // ethtool -i: driver, version, firmware-version, bus-info
};
// ETHTOOL_GDRVINFO; nullopt when the device does not answer.
std::optional<DriverInfo> read_driver_info(const std::string& netdev);

struct RingSizes {
  uint32_t rx = 0, tx = 0, rx_max = 0, tx_max = 0;  // ethtool -g: current and pre-set maximum
};
// ETHTOOL_GRINGPARAM; nullopt when the driver does not report rings (veth reports them, lo not).
std::optional<RingSizes> read_ring_sizes(const std::string& netdev);

// The link's speed now and the fastest of the modes its port supports (ethtool's "Speed" and
// "Supported link modes"), Mb/s. nullopt when the device does not answer ETHTOOL_GLINKSETTINGS;
// max_mbps -1 when it lists no speed mode, as virtual devices (veth) do: never guessed.
struct LinkSpeeds {
  int64_t mbps = -1, max_mbps = -1;
};
std::optional<LinkSpeeds> read_link_speeds(const std::string& netdev);

// The highest speed among the link mode bits set in `supported` (the kernel's bitmap, 32 bits a
// word, bit 0 of word 0 first), Mb/s; -1 when no set bit is a speed mode.
int64_t max_link_mode_mbps(const std::vector<uint32_t>& supported);

// The interface the kernel routes `to` through (a connected datagram socket's own address, no
// packet sent), "" when there is no route or no interface holds that address.
std::string interface_toward(const sockaddr_in& to);

// The interface holding `address` (getifaddrs), "" when none does (0.0.0.0 included).
std::string interface_of(const in_addr& address);

}  // namespace spiral
