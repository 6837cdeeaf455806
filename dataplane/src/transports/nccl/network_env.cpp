#include "transports/nccl/network_env.hpp"

#include <cstdlib>

#include "sys/errors.hpp"

namespace spiral::nccl {

namespace {
void require_plain(const std::string& name, const char* what) {
  if (name.empty() || name.find_first_of(",= \t:^") != std::string::npos)
    throw BadInput(std::string("NCCL: ") + what + " \"" + name + "\" is not a plain device name");
}
}  // namespace

EnvList nccl_environment(const NetworkChoice& network, const std::string& debug_file) {
  // INIT and NET carry the version, the network and the per-connection transport lines.
  EnvList env{{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "INIT,NET"}, {"NCCL_DEBUG_FILE", debug_file}};
  if (!network.rdma_devices.empty()) {
    std::string list = "=";
    for (const auto& d : network.rdma_devices) {
      require_plain(d, "RDMA device");
      list += (list.size() > 1 ? "," : "") + d;
    }
    env.emplace_back("NCCL_IB_HCA", list);
  }
  if (network.disable_ib) env.emplace_back("NCCL_IB_DISABLE", "1");
  if (!network.socket_interface.empty()) {
    require_plain(network.socket_interface, "interface");
    env.emplace_back("NCCL_SOCKET_IFNAME", "=" + network.socket_interface);
  }
  return env;
}

void apply_environment(const EnvList& env) {
  for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
}

}  // namespace spiral::nccl
