#include "sys/ethtool.hpp"

#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
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

int64_t max_link_mode_mbps(const std::vector<uint32_t>& supported) {
  // enum ethtool_link_mode_bit_indices, include/uapi/linux/ethtool.h (Linux 6.16: bits 0-124):
  // each speed mode's bit, by runs of consecutive bits of one speed. Bits not listed (Autoneg,
  // TP, Pause, FEC_*, ...) name no speed.
  static constexpr struct {
    uint16_t first, last;
    int64_t mbps;
  } kModes[] = {{0, 1, 10},          {2, 3, 100},        {4, 5, 1000},       {12, 12, 10000},      {15, 15, 2500},
                {17, 17, 1000},      {18, 19, 10000},    {21, 22, 20000},    {23, 26, 40000},      {27, 30, 56000},
                {31, 33, 25000},     {34, 35, 50000},    {36, 39, 100000},   {40, 40, 50000},      {41, 41, 1000},
                {42, 46, 10000},     {47, 47, 2500},     {48, 48, 5000},     {52, 56, 50000},      {57, 61, 100000},
                {62, 66, 200000},    {67, 67, 100},      {68, 68, 1000},     {69, 73, 400000},     {75, 79, 100000},
                {80, 84, 200000},    {85, 89, 400000},   {90, 91, 100},      {92, 92, 10},         {93, 98, 800000},
                {99, 102, 10},       {103, 108, 200000}, {109, 114, 400000}, {115, 120, 800000},   {121, 124, 1600000}};
  int64_t best = -1;
  for (const auto& m : kModes)
    for (unsigned bit = m.first; bit <= m.last; ++bit)
      if (bit / 32 < supported.size() && (supported[bit / 32] >> (bit % 32) & 1u)) best = std::max(best, m.mbps);
  return best;
}

std::optional<LinkSpeeds> read_link_speeds(const std::string& netdev) {
  // ETHTOOL_GLINKSETTINGS's handshake (include/uapi/linux/ethtool.h): asked with 0 words, the
  // kernel answers the mask length it wants as a negative link_mode_masks_nwords; asked again
  // with that length, it fills supported, advertising and link-partner masks in that order.
  constexpr int kMaxWords = 32;  // the kernel's own limit is 127 (__s8); 1024 modes is plenty
  std::vector<uint8_t> storage(sizeof(ethtool_link_settings) + 3 * kMaxWords * sizeof(uint32_t));
  auto* settings = reinterpret_cast<ethtool_link_settings*>(storage.data());
  settings->cmd = ETHTOOL_GLINKSETTINGS;
  if (!ethtool_ioctl(netdev, settings) || settings->link_mode_masks_nwords >= 0) return std::nullopt;
  const int words = -settings->link_mode_masks_nwords;
  if (words > kMaxWords) return std::nullopt;
  std::fill(storage.begin(), storage.end(), 0);
  settings->cmd = ETHTOOL_GLINKSETTINGS;
  settings->link_mode_masks_nwords = static_cast<int8_t>(words);
  if (!ethtool_ioctl(netdev, settings) || settings->link_mode_masks_nwords != words) return std::nullopt;
  LinkSpeeds out;
  // SPEED_UNKNOWN is (__u32)-1; a link that is down reports it.
  if (settings->speed != 0 && settings->speed != static_cast<uint32_t>(-1)) out.mbps = settings->speed;
  const uint32_t* masks = reinterpret_cast<const uint32_t*>(storage.data() + sizeof(ethtool_link_settings));
  out.max_mbps = max_link_mode_mbps(std::vector<uint32_t>(masks, masks + words));
  return out;
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
