#include "gpu/nvml_sampler.hpp"

#include <dlfcn.h>

#include <cstring>

namespace spiral::gpu {

// The few NVML entry points used, declared here so no NVML header is needed at build time
// (signatures from nvml.h; nvmlReturn_t is an int-sized enum, 0 = NVML_SUCCESS).
struct NvmlSampler::Api {
  struct Utilization {
    unsigned int gpu, memory;
  };
  using Init = int (*)();
  using Shutdown = int (*)();
  using ErrorString = const char* (*)(int);
  using ByPciBusId = int (*)(const char*, void**);
  using ByIndex = int (*)(unsigned int, void**);
  using GetUtilization = int (*)(void*, Utilization*);
  Init init = nullptr;
  Shutdown shutdown = nullptr;
  ErrorString error_string = nullptr;
  ByPciBusId by_pci_bus_id = nullptr;
  ByIndex by_index = nullptr;
  GetUtilization utilization = nullptr;
  bool initialised = false;
};

namespace {
template <typename F>
bool resolve(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  return out != nullptr;
}
}  // namespace

NvmlSampler::NvmlSampler(const std::string& pci_bus_id, std::chrono::milliseconds period, const char* library)
    : period_(period) {
  lib_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    const char* why = dlerror();
    status_ = std::string("NVML absent: ") + (why ? why : library);
    return;
  }
  api_ = new Api;
  if (!resolve(lib_, "nvmlInit_v2", api_->init) || !resolve(lib_, "nvmlShutdown", api_->shutdown) ||
      !resolve(lib_, "nvmlErrorString", api_->error_string) ||
      !resolve(lib_, "nvmlDeviceGetHandleByPciBusId_v2", api_->by_pci_bus_id) ||
      !resolve(lib_, "nvmlDeviceGetHandleByIndex_v2", api_->by_index) ||
      !resolve(lib_, "nvmlDeviceGetUtilizationRates", api_->utilization)) {
    status_ = std::string("NVML unusable: ") + library + " lacks an entry point";
    return;
  }
  if (int rc = api_->init(); rc != 0) {
    status_ = std::string("NVML unusable: nvmlInit: ") + api_->error_string(rc);
    return;
  }
  api_->initialised = true;
  void* device = nullptr;
  std::string matched = "ok";
  int rc = pci_bus_id.empty() ? api_->by_index(0, &device) : api_->by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (rc != 0 && !pci_bus_id.empty()) {
    // Bus id spelled differently than NVML wants it: NVML's device 0 is the same GPU on a
    // one-GPU machine, and the status says which was taken.
    matched = "ok: NVML device 0 (bus id " + pci_bus_id + ": " + api_->error_string(rc) + ")";
    rc = api_->by_index(0, &device);
  }
  if (rc != 0) {
    status_ = "NVML has no device " + (pci_bus_id.empty() ? std::string("0") : pci_bus_id) + ": " + api_->error_string(rc);
    return;
  }
  Api::Utilization u{};
  if (rc = api_->utilization(device, &u); rc != 0) {
    status_ = std::string("NVML utilisation unsupported: ") + api_->error_string(rc);
    return;
  }
  device_ = device;
  status_ = matched;
}

NvmlSampler::~NvmlSampler() {
  stop();
  if (api_ && api_->initialised) api_->shutdown();
  delete api_;
  if (lib_) dlclose(lib_);
}

void NvmlSampler::start() {
  std::lock_guard guard(lock_);
  if (!device_ || running_) return;
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

void NvmlSampler::stop() {
  {
    std::lock_guard guard(lock_);
    if (!running_) return;
    running_ = false;
  }
  wake_.notify_all();
  thread_.join();
  sample_once();  // the window's end: at least one sample, however short the window
}

void NvmlSampler::sample_once() {
  Api::Utilization u{};
  if (api_->utilization(device_, &u) != 0) return;  // a missed sample is not a reason to stop
  std::lock_guard guard(lock_);
  sum_gpu_ += u.gpu;
  sum_mem_ += u.memory;
  ++samples_;
}

void NvmlSampler::loop() {
  std::unique_lock guard(lock_);
  while (running_) {
    guard.unlock();
    sample_once();
    guard.lock();
    wake_.wait_for(guard, period_, [this] { return !running_; });
  }
}

void NvmlSampler::reset() {
  std::lock_guard guard(lock_);
  sum_gpu_ = sum_mem_ = 0;
  samples_ = 0;
}

void* NvmlSampler::symbol(const char* name) const { return lib_ ? dlsym(lib_, name) : nullptr; }

NvmlSampler::PcieLink NvmlSampler::pcie_link() const {
  PcieLink link;
  if (!device_) return link;
  // Optional entry points (nvml.h: nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}), looked up
  // here so a library without them still samples utilisation.
  using Query = int (*)(void*, unsigned int*);
  auto read = [&](const char* symbol, int& out) {
    auto query = reinterpret_cast<Query>(dlsym(lib_, symbol));
    unsigned int value = 0;
    if (query && query(device_, &value) == 0) out = static_cast<int>(value);
  };
  read("nvmlDeviceGetCurrPcieLinkGeneration", link.generation);
  read("nvmlDeviceGetCurrPcieLinkWidth", link.width);
  read("nvmlDeviceGetMaxPcieLinkGeneration", link.max_generation);
  read("nvmlDeviceGetMaxPcieLinkWidth", link.max_width);
  return link;
}

NvmlSampler::Identity NvmlSampler::identity() const {
  Identity id;
  if (!device_) return id;
  // Optional entry points, as in pcie_link (nvml.h signatures).
  char text[96] = {};
  using DeviceText = int (*)(void*, char*, unsigned int);
  if (auto name = reinterpret_cast<DeviceText>(dlsym(lib_, "nvmlDeviceGetName")); name && name(device_, text, sizeof text) == 0)
    id.name = text;
  using SystemText = int (*)(char*, unsigned int);
  text[0] = 0;
  if (auto driver = reinterpret_cast<SystemText>(dlsym(lib_, "nvmlSystemGetDriverVersion"));
      driver && driver(text, sizeof text) == 0)
    id.driver_version = text;
  using SystemInt = int (*)(int*);
  int cuda = 0;
  if (auto version = reinterpret_cast<SystemInt>(dlsym(lib_, "nvmlSystemGetCudaDriverVersion_v2"));
      version && version(&cuda) == 0)
    id.cuda_driver_version = cuda;
  // nvmlPciInfo_t (v3 layout): busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32].
  struct PciInfo {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_sub_system_id;
    char bus_id[32];
  } pci{};
  using DevicePci = int (*)(void*, PciInfo*);
  if (auto info = reinterpret_cast<DevicePci>(dlsym(lib_, "nvmlDeviceGetPciInfo_v3")); info && info(device_, &pci) == 0)
    id.pci_bus_id = std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id));
  return id;
}

NvmlSampler::Figures NvmlSampler::figures() const {
  std::lock_guard guard(lock_);
  Figures f;
  f.samples = samples_;
  if (samples_) {
    f.sm_mpct = static_cast<int64_t>(sum_gpu_ * 1000 / samples_);
    f.mem_mpct = static_cast<int64_t>(sum_mem_ * 1000 / samples_);
  }
  return f;
}

}  // namespace spiral::gpu
