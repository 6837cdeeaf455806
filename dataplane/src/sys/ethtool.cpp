#include "sys/ethtool.hpp"

#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "sys/errors.hpp"
#include "sys/fd.hpp"

namespace spiral {

namespace {

// One ioctl on a throwaway datagram socket, as ethtool(8) does; false with errno set on failure.
bool ethtool_ioctl(const std::string& netdev, void* command) {
  if (netdev.empty() || netdev.size() >= IFNAMSIZ) {
    errno = ENODEV;
    return false;
  }
  Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd) return false;
  ifreq request{};
  std::memcpy(request.ifr_name, netdev.c_str(), netdev.size());
  request.ifr_data = static_cast<char*>(command);
  return ::ioctl(fd.get(), SIOCETHTOOL, &request) == 0;
}

std::string fixed_string(const char* text, size_t capacity) { return std::string(text, strnlen(text, capacity)); }

}  // namespace

std::optional<std::map<std::string, uint64_t>> read_ethtool_stats(const std::string& netdev, std::string* why) {
  auto fail = [&](const std::string& what) -> std::optional<std::map<std::string, uint64_t>> {
    if (why) *why = errno_message(what, errno);
    return std::nullopt;
  };
  // ETHTOOL_GSSET_INFO: how many statistics the driver names (a bit mask in, one count out).
  // The header and its one-element flexible array, in plain storage the ioctl fills.
  alignas(ethtool_sset_info) uint8_t sset_storage[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_storage);
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ull << ETH_SS_STATS;
  if (!ethtool_ioctl(netdev, sset)) return fail("ETHTOOL_GSSET_INFO");
  const uint32_t count = sset->sset_mask ? sset->data[0] : 0;
  if (count == 0) {
    if (why) *why = "the driver names no statistics";
    return std::nullopt;
  }
  std::vector<uint8_t> names(sizeof(ethtool_gstrings) + size_t{count} * ETH_GSTRING_LEN);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(names.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = count;
  if (!ethtool_ioctl(netdev, strings)) return fail("ETHTOOL_GSTRINGS");
  std::vector<uint8_t> values(sizeof(ethtool_stats) + size_t{count} * sizeof(uint64_t));
  auto* stats = reinterpret_cast<ethtool_stats*>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = count;
  if (!ethtool_ioctl(netdev, stats)) return fail("ETHTOOL_GSTATS");
  std::map<std::string, uint64_t> out;
  const uint32_t got = std::min(count, std::min(strings->len, stats->n_stats));
  for (uint32_t i = 0; i < got; ++i) {
    const char* name = reinterpret_cast<const char*>(strings->data) + size_t{i} * ETH_GSTRING_LEN;
    out[fixed_string(name, ETH_GSTRING_LEN)] = stats->data[i];
  }
  return out;
}

std::optional<DriverInfo> read_driver_info(const std::string& netdev) {
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (!ethtool_ioctl(netdev, &info)) return std::nullopt;
  return DriverInfo{fixed_string(info.driver, sizeof(info.driver)), fixed_string(info.version, sizeof(info.version)),
                    fixed_string(info.fw_version, sizeof(info.fw_version)),
                    fixed_string(info.bus_info, sizeof(info.bus_info))};
}

std::optional<RingSizes> read_ring_sizes(const std::string& netdev) {
  ethtool_ringparam ring{};
  ring.cmd = ETHTOOL_GRINGPARAM;
  if (!ethtool_ioctl(netdev, &ring)) return std::nullopt;
  return RingSizes{ring.rx_pending, ring.tx_pending, ring.rx_max_pending, ring.tx_max_pending};
}

std::string interface_toward(const sockaddr_in& to) {
  Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) return "";
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) return "";
  return interface_of(local.sin_addr);
}

std::string interface_of(const in_addr& address) {
  if (address.s_addr == htonl(INADDR_ANY)) return "";
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string name;
  for (ifaddrs* a = list; a && name.empty(); a = a->ifa_next)
    if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == address.s_addr)
      name = a->ifa_name;
  ::freeifaddrs(list);
  return name;
}

}  // namespace spiral
