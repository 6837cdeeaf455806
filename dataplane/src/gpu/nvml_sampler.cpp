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

// nvmlPciInfo_t (v3 layout): busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32].
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_sub_system_id;
  char bus_id[32];
};

std::string bus_id_of(const PciInfo& pci) { return std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id)); }

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

namespace {
NvmlSampler::PcieLink pcie_link_of(void* lib, void* device) {
  NvmlSampler::PcieLink link;
  // Optional entry points (nvml.h: nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}), looked up
  // here so a library without them still samples utilisation.
  using Query = int (*)(void*, unsigned int*);
  auto read = [&](const char* symbol, int& out) {
    auto query = reinterpret_cast<Query>(dlsym(lib, symbol));
    unsigned int value = 0;
    if (query && query(device, &value) == 0) out = static_cast<int>(value);
  };
  read("nvmlDeviceGetCurrPcieLinkGeneration", link.generation);
  read("nvmlDeviceGetCurrPcieLinkWidth", link.width);
  read("nvmlDeviceGetMaxPcieLinkGeneration", link.max_generation);
  read("nvmlDeviceGetMaxPcieLinkWidth", link.max_width);
  return link;
}
}  // namespace

NvmlSampler::PcieLink NvmlSampler::pcie_link() const { return device_ ? pcie_link_of(lib_, device_) : PcieLink{}; }

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
  PciInfo pci{};
  using DevicePci = int (*)(void*, PciInfo*);
  if (auto info = reinterpret_cast<DevicePci>(dlsym(lib_, "nvmlDeviceGetPciInfo_v3")); info && info(device_, &pci) == 0)
    id.pci_bus_id = bus_id_of(pci);
  return id;
}

std::optional<std::vector<std::string>> NvmlSampler::nvlink_remotes() const {
  if (!device_) return std::nullopt;
  // nvml.h: nvmlDeviceGetNvLinkState(device, link, nvmlEnableState_t*), ...RemotePciInfo_v2(device,
  // link, nvmlPciInfo_t*), ...RemoteDeviceType(device, link, nvmlIntNvLinkDeviceType_t*).
  using State = int (*)(void*, unsigned int, int*);
  using Remote = int (*)(void*, unsigned int, PciInfo*);
  using RemoteType = int (*)(void*, unsigned int, int*);
  const auto state = reinterpret_cast<State>(dlsym(lib_, "nvmlDeviceGetNvLinkState"));
  const auto remote = reinterpret_cast<Remote>(dlsym(lib_, "nvmlDeviceGetNvLinkRemotePciInfo_v2"));
  const auto remote_type = reinterpret_cast<RemoteType>(dlsym(lib_, "nvmlDeviceGetNvLinkRemoteDeviceType"));
  if (!state || !remote) return std::nullopt;
  constexpr unsigned kMaxLinks = 18;     // NVML_NVLINK_MAX_LINKS
  constexpr int kEnabled = 1;            // NVML_FEATURE_ENABLED
  constexpr int kCpu = 1;                // NVML_NVLINK_DEVICE_TYPE_IBMNPU: a link to a CPU, no GPU path
  constexpr int kSwitch = 2;             // NVML_NVLINK_DEVICE_TYPE_SWITCH
  std::vector<std::string> out;
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    int active = 0;
    if (state(device_, link, &active) != 0 || active != kEnabled) continue;  // absent, down, or no NVLink at all
    int type = -1;
    if (remote_type && remote_type(device_, link, &type) == 0 && type == kCpu) continue;
    PciInfo pci{};
    if (remote(device_, link, &pci) == 0) {
      out.push_back(bus_id_of(pci));
    } else if (type == kSwitch) {
      // an NVSwitch NVML does not name (as in VMs whose switches stay with the host): the GPUs
      // of one node's switches share one NVLink fabric, so a common name stands for it
      out.push_back("nvswitch");
    } else {
      return std::nullopt;  // an NVLink to somewhere unnamed: cannot tell
    }
  }
  return out;
}

namespace {
// nvmlFieldValue_t (nvml.h): fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn,
// then an 8-byte union of the value's types.
struct FieldValue {
  unsigned int field_id, scope_id;
  long long timestamp, latency_usec;
  int value_type, nvml_return;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};

int64_t field_integer(const FieldValue& f) {
  switch (f.value_type) {  // nvmlValueType_t: NVML_VALUE_TYPE_DOUBLE = 0, ... SIGNED_INT = 5, UNSIGNED_SHORT = 6
    case 0: return static_cast<int64_t>(f.value.d);
    case 1: return f.value.ui;
    case 2: return static_cast<int64_t>(f.value.ul);
    case 3: return static_cast<int64_t>(f.value.ull);
    case 4: return f.value.sll;
    case 5: return f.value.si;
    case 6: return f.value.us;
  }
  return -1;
}
}  // namespace

std::optional<std::vector<NvmlSampler::GpuFacts>> NvmlSampler::visible_gpus() const {
  if (!device_) return std::nullopt;
  // nvml.h signatures; each optional: a driver without one leaves its facts at -1.
  using Count = int (*)(unsigned int*);
  using DevicePci = int (*)(void*, PciInfo*);
  using PState = int (*)(void*, int*);
  using LinkState = int (*)(void*, unsigned int, int*);
  using Fields = int (*)(void*, int, FieldValue*);
  using RetiredPages = int (*)(void*, int, unsigned int*, unsigned long long*);
  using Pending = int (*)(void*, int*);
  using RemappedRows = int (*)(void*, unsigned int*, unsigned int*, unsigned int*, unsigned int*);
  const auto count = reinterpret_cast<Count>(dlsym(lib_, "nvmlDeviceGetCount_v2"));
  if (!count) return std::nullopt;
  const auto pci_info = reinterpret_cast<DevicePci>(dlsym(lib_, "nvmlDeviceGetPciInfo_v3"));
  const auto pstate = reinterpret_cast<PState>(dlsym(lib_, "nvmlDeviceGetPerformanceState"));
  const auto link_state = reinterpret_cast<LinkState>(dlsym(lib_, "nvmlDeviceGetNvLinkState"));
  const auto fields = reinterpret_cast<Fields>(dlsym(lib_, "nvmlDeviceGetFieldValues"));
  const auto retired = reinterpret_cast<RetiredPages>(dlsym(lib_, "nvmlDeviceGetRetiredPages"));
  const auto pending = reinterpret_cast<Pending>(dlsym(lib_, "nvmlDeviceGetRetiredPagesPendingStatus"));
  const auto remapped = reinterpret_cast<RemappedRows>(dlsym(lib_, "nvmlDeviceGetRemappedRows"));
  constexpr unsigned kMaxLinks = 18;        // NVML_NVLINK_MAX_LINKS
  constexpr int kEnabled = 1;               // NVML_FEATURE_ENABLED
  constexpr unsigned kLinkSpeedField = 164;  // NVML_FI_DEV_NVLINK_GET_SPEED, scopeId = link, MB/s
  constexpr int kInsufficientSize = 7;      // NVML_ERROR_INSUFFICIENT_SIZE: the count is still written
  unsigned int n = 0;
  if (count(&n) != 0) return std::nullopt;
  std::vector<GpuFacts> out;
  for (unsigned i = 0; i < n; ++i) {
    void* dev = nullptr;
    if (api_->by_index(i, &dev) != 0) continue;  // a GPU NVML cannot open (lost, no permission)
    GpuFacts g;
    PciInfo pci{};
    if (pci_info && pci_info(dev, &pci) == 0) g.pci_bus_id = bus_id_of(pci);
    g.pcie = pcie_link_of(lib_, dev);
    if (int p = -1; pstate && pstate(dev, &p) == 0 && p >= 0 && p < 32) g.pstate = p;  // 32 = NVML_PSTATE_UNKNOWN
    if (link_state) {
      std::vector<unsigned> active;
      int links = 0;
      // A link the device lacks answers an error; a GPU without NVLink answers NOT_SUPPORTED for all.
      for (unsigned link = 0; link < kMaxLinks; ++link) {
        int state = 0;
        if (link_state(dev, link, &state) != 0) continue;
        ++links;
        if (state == kEnabled) active.push_back(link);
      }
      if (links > 0) {
        g.nvlinks = links;
        g.nvlinks_active = static_cast<int>(active.size());
      }
      for (unsigned link : active) {
        FieldValue f{};
        f.field_id = kLinkSpeedField;
        f.scope_id = link;
        g.nvlink_mbyte_s.push_back(fields && fields(dev, 1, &f) == 0 && f.nvml_return == 0 ? field_integer(f) : -1);
      }
    }
    if (retired) {
      // nvmlPageRetirementCause_t: 0 multiple single-bit ECC errors, 1 a double-bit ECC error.
      int64_t total = 0;
      bool any = false;
      for (int cause = 0; cause < 2; ++cause) {
        unsigned int pages = 0;
        const int rc = retired(dev, cause, &pages, nullptr);
        if (rc == 0 || rc == kInsufficientSize) total += pages, any = true;
      }
      if (any) g.retired_pages = total;
    }
    if (int p = 0; pending && pending(dev, &p) == 0) g.retired_pending = p == kEnabled ? 1 : 0;
    if (unsigned c = 0, u = 0, p = 0, failed = 0; remapped && remapped(dev, &c, &u, &p, &failed) == 0) {
      g.remapped_rows = int64_t{c} + u;
      g.remap_pending = p ? 1 : 0;
    }
    out.push_back(std::move(g));
  }
  return out;
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
