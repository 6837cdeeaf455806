#include "transports/roce/device.hpp"

#include <arpa/inet.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>
#include <vector>

#include "sys/errors.hpp"
#include "transports/roce/peer_info.hpp"

namespace spiral::roce {

namespace {

// One RoCE v2 GID of one port of one device, the unit this chooses among.
struct GidChoice {
  size_t device = 0;  // index into the opened devices
  uint8_t port = 0;
  int index = -1;
  std::array<uint8_t, 16> gid{};
  std::string netdev;
  bool port_active = false;
};

struct Opened {
  std::string name;
  Context context;
  ibv_device_attr attr{};
  std::vector<std::string> netdevs;  // of its Ethernet ports, from every GID entry
  bool has_ethernet_port = false;
};

bool ipv4_mapped(const std::array<uint8_t, 16>& gid) {
  static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(gid.data(), prefix, 12) == 0;
}
bool link_local(const std::array<uint8_t, 16>& gid) { return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80; }

std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : separator) + i;
  return s.empty() ? "none" : s;
}

std::string netdev_name(uint32_t ifindex) {
  char name[IF_NAMESIZE] = {};
  return ifindex && if_indextoname(ifindex, name) ? name : "";
}

// Opens every device (or the named one) and lists its ports' RoCE v2 GIDs.
void survey(ibv_device** list, int count, const RdmaOptions& o, std::vector<Opened>& devices,
            std::vector<GidChoice>& gids) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.emplace_back(ibv_get_device_name(list[i]));
  if (!o.device.empty() && std::find(names.begin(), names.end(), o.device) == names.end())
    throw BadInput("RDMA device \"" + o.device + "\" not found (devices here: " + joined(names) + ")");
  for (int i = 0; i < count; ++i) {
    if (!o.device.empty() && names[i] != o.device) continue;
    Opened d;
    d.name = names[i];
    errno = 0;
    d.context.reset(ibv_open_device(list[i]));
    if (!d.context) {
      if (!o.device.empty()) throw BadInput(errno_message("cannot open RDMA device " + d.name, errno));
      continue;  // another device may serve
    }
    if (ibv_query_device(d.context.get(), &d.attr))
      throw RunFailure(errno_message("ibv_query_device " + d.name, errno));
    std::vector<ibv_port_attr> ports(d.attr.phys_port_cnt + 1);
    size_t table = 0;
    for (uint8_t p = 1; p <= d.attr.phys_port_cnt; ++p) {
      if (ibv_query_port(d.context.get(), p, &ports[p])) throw RunFailure(errno_message("ibv_query_port " + d.name, errno));
      table += static_cast<size_t>(ports[p].gid_tbl_len);
      if (ports[p].link_layer == IBV_LINK_LAYER_ETHERNET) d.has_ethernet_port = true;
    }
    std::vector<ibv_gid_entry> entries(std::max<size_t>(table, 1));
    const ssize_t n = ibv_query_gid_table(d.context.get(), entries.data(), entries.size(), 0);
    if (n < 0) throw RunFailure(errno_message("ibv_query_gid_table " + d.name, static_cast<int>(-n)));
    for (ssize_t k = 0; k < n; ++k) {
      const ibv_gid_entry& e = entries[static_cast<size_t>(k)];
      if (e.port_num < 1 || e.port_num > d.attr.phys_port_cnt) continue;
      const ibv_port_attr& pa = ports[e.port_num];
      if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) continue;
      std::string netdev = netdev_name(e.ndev_ifindex);
      if (!netdev.empty() && std::find(d.netdevs.begin(), d.netdevs.end(), netdev) == d.netdevs.end())
        d.netdevs.push_back(netdev);
      if (e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
      GidChoice g;
      g.device = devices.size();
      g.port = static_cast<uint8_t>(e.port_num);
      g.index = static_cast<int>(e.gid_index);
      std::memcpy(g.gid.data(), e.gid.raw, 16);
      g.netdev = std::move(netdev);
      g.port_active = pa.state == IBV_PORT_ACTIVE;
      gids.push_back(std::move(g));
    }
    devices.push_back(std::move(d));
  }
  if (devices.empty()) throw BadInput("no RDMA device could be opened (devices here: " + joined(names) + ")");
}

// Nothing fits: say which part of the request the devices here cannot meet.
[[noreturn]] void explain_no_gid(const RdmaOptions& o, const std::string& bind, const std::vector<Opened>& devices,
                                 const std::vector<GidChoice>& gids) {
  std::vector<std::string> carried;  // "rxe0: veth0"
  bool any_ethernet = false;
  for (const auto& d : devices) {
    carried.push_back(d.name + ": " + joined(d.netdevs));
    any_ethernet = any_ethernet || d.has_ethernet_port;
  }
  if (!any_ethernet)
    throw BadInput("no RoCE port: " + joined(carried, "; ") + " (InfiniBand ports only; roce needs an Ethernet port)");
  if (!o.netdev.empty()) {
    bool carries = false;
    for (const auto& d : devices)
      carries = carries || std::find(d.netdevs.begin(), d.netdevs.end(), o.netdev) != d.netdevs.end();
    if (!carries) {
      if (!o.device.empty())
        throw BadInput("RDMA device " + o.device + " is not on netdev " + o.netdev + " (it is on " +
                       joined(devices.front().netdevs) + ")");
      throw BadInput("no RDMA device on netdev " + o.netdev + " (RDMA devices and their netdevs: " +
                     joined(carried, "; ") + ")");
    }
  }
  std::string where = !o.netdev.empty() ? "netdev " + o.netdev : !o.device.empty() ? "RDMA device " + o.device : "any RDMA device";
  std::vector<std::string> seen;
  for (const auto& g : gids)
    if (o.netdev.empty() || g.netdev == o.netdev) seen.push_back(gid_text(g.gid) + " (" + devices[g.device].name + " " + g.netdev + ")");
  if (!bind.empty())
    throw BadInput("GID not found: no RoCE v2 GID for " + bind + " on " + where + " (RoCE v2 GIDs there: " +
                   joined(seen) + ")");
  throw BadInput("GID not found: " + where + " has no RoCE v2 GID (an IP address on the netdev makes one)");
}

}  // namespace

uint32_t mtu_bytes(ibv_mtu mtu) { return 128u << static_cast<int>(mtu); }

ibv_mtu mtu_from_bytes(uint32_t bytes) {
  int m = IBV_MTU_256;
  while (m < IBV_MTU_4096 && (128u << (m + 1)) <= bytes) ++m;
  return static_cast<ibv_mtu>(m);
}

OpenDevice open_device(const RdmaOptions& o, const std::string& bind_address) {
  int count = 0;
  errno = 0;
  DeviceList list(ibv_get_device_list(&count));
  if (!list)
    throw BadInput(errno_message("no RDMA device: ibv_get_device_list", errno) +
                   " (this kernel has no RDMA support; a pod needs an RDMA device and its driver)");
  if (count == 0)
    throw BadInput("no RDMA device: ibv_get_device_list found none (load the NIC's RDMA driver, e.g. mlx5_ib, "
                   "or give the pod an RDMA device)");

  std::vector<Opened> devices;
  std::vector<GidChoice> gids;
  survey(list.get(), count, o, devices, gids);

  std::array<uint8_t, 16> wanted{};
  const bool by_address = !bind_address.empty() && bind_address != "0.0.0.0";
  if (by_address) {
    in_addr a{};
    if (inet_pton(AF_INET, bind_address.c_str(), &a) != 1) throw BadInput("bind_address is not IPv4: " + bind_address);
    wanted[10] = wanted[11] = 0xff;
    std::memcpy(wanted.data() + 12, &a, 4);
  }
  std::vector<GidChoice> fits;
  for (const auto& g : gids) {
    if (!o.netdev.empty() && g.netdev != o.netdev) continue;
    if (by_address && g.gid != wanted) continue;
    fits.push_back(g);
  }
  if (fits.empty()) explain_no_gid(o, by_address ? bind_address : "", devices, gids);
  // Active ports first, then IPv4-mapped GIDs (what RoCE deployments route), then global
  // before link-local, then the table's order.
  auto rank = [](const GidChoice& g) {
    return std::make_tuple(!g.port_active, !ipv4_mapped(g.gid), link_local(g.gid), g.device, g.port, g.index);
  };
  const GidChoice best = *std::min_element(fits.begin(), fits.end(),
                                           [&](const GidChoice& a, const GidChoice& b) { return rank(a) < rank(b); });
  Opened& d = devices[best.device];
  ibv_port_attr pa{};
  if (ibv_query_port(d.context.get(), best.port, &pa)) throw RunFailure(errno_message("ibv_query_port " + d.name, errno));
  if (pa.state != IBV_PORT_ACTIVE)
    throw BadInput("port " + std::to_string(best.port) + " of RDMA device " + d.name + " (" + best.netdev +
                   ") is not active: " + ibv_port_state_str(pa.state));

  OpenDevice out;
  out.context = std::move(d.context);
  out.name = d.name;
  out.port = best.port;
  out.gid_index = best.index;
  out.gid = best.gid;
  out.netdev = best.netdev;
  out.active_mtu = pa.active_mtu;
  out.max_msg_bytes = pa.max_msg_sz;
  out.attr = d.attr;
  return out;
}

}  // namespace spiral::roce
