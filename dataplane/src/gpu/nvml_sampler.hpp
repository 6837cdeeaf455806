#pragma once
// GPU utilisation from NVML, loaded at run time (dlopen) from the driver's libnvidia-ml.so.1,
// so the binary runs where the driver has no NVML and says so instead.
//
// The figures are NVML's utilisation rates, the same as nvidia-smi's "sm" and "mem" columns:
// gpu = share of the sample period in which a kernel ran (not SM occupancy), memory = share in
// which device memory was read or written. Sampled every `period` from start() to stop().
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace spiral::gpu {

class NvmlSampler {
 public:
  struct Figures {
    int64_t sm_mpct = -1, mem_mpct = -1;  // means over the samples, milli-percent; -1 none
    uint32_t samples = 0;
  };

  // Never throws: when NVML or the device is missing, status() says why and figures() stay -1.
  // pci_bus_id: the CUDA device's ("0000:1B:00.0"); empty takes NVML's device 0.
  explicit NvmlSampler(const std::string& pci_bus_id, std::chrono::milliseconds period = std::chrono::milliseconds(100),
                       const char* library = "libnvidia-ml.so.1");
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // The GPU's PCIe link as NVML reads it; -1 where NVML or the query is missing (a GPU not on
  // PCIe, such as GB10's C2C-attached one, reports none).
  struct PcieLink {
    int generation = -1, width = -1;          // now (may train down when idle)
    int max_generation = -1, max_width = -1;  // what the device and slot allow
  };
  PcieLink pcie_link() const;

  // The PCI bus ids at the far ends of the GPU's active NVLinks (peer GPUs or NVSwitches; links
  // to a CPU left out), NVML's spelling, or "nvswitch" for a switch NVML does not name; empty:
  // no active NVLink (the GPU reaches its peers over PCIe). nullopt when NVML cannot tell: no
  // device, no NVLink API, or an active link to a GPU or device it does not name.
  std::optional<std::vector<std::string>> nvlink_remotes() const;

  // What the environment capture records of the GPU; empty strings / -1 where NVML lacks them.
  struct Identity {
    std::string name, driver_version, pci_bus_id;
    int cuda_driver_version = -1;  // NVML's integer, 12080 = CUDA 12.8
  };
  Identity identity() const;

  // Every GPU this process sees (NVML enumerates only the devices of the container), in NVML's
  // order, for the environment capture. Fields are -1 / empty where NVML lacks the query.
  struct GpuFacts {
    std::string pci_bus_id;  // NVML's spelling, 00000000:1B:00.0
    PcieLink pcie;           // as NVML reads it (sysfs's is preferred where the container shows it)
    int pstate = -1;         // performance state, 0 = P0 (full power); links train down in others
    // NVLink: links the device has (nvmlDeviceGetNvLinkState answers for them) and active ones;
    // the rate of each link, MB/s (field NVML_FI_DEV_NVLINK_GET_SPEED), -1 where not given.
    int nvlinks = -1, nvlinks_active = -1;
    std::vector<int64_t> nvlink_mbyte_s;
    // Page retirement (before Ampere): pages retired for ECC errors, and whether a retirement
    // waits for a reboot (1/0). Row remapping (Ampere on): rows remapped, and pending (1/0).
    int64_t retired_pages = -1;
    int retired_pending = -1;
    int64_t remapped_rows = -1;
    int remap_pending = -1;
  };
  // nullopt without NVML or without nvmlDeviceGetCount_v2.
  std::optional<std::vector<GpuFacts>> visible_gpus() const;

  // For queries of their own (transports/gpucopy/peer_path.cpp): an NVML entry point by name
  // (nullptr when absent) and this GPU's nvmlDevice_t (nullptr unless available()).
  void* symbol(const char* name) const;
  void* device_handle() const { return device_; }

  bool available() const { return device_ != nullptr; }
  const std::string& status() const { return status_; }  // "ok" or the reason
  void start();  // idempotent; a no-op without NVML
  void stop();   // idempotent; takes a last sample
  Figures figures() const;
  void reset();  // forget the samples so far (between measurements)

 private:
  struct Api;
  void sample_once();
  void loop();

  void* lib_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;
  std::string status_;
  std::chrono::milliseconds period_;
  mutable std::mutex lock_;
  std::condition_variable wake_;
  bool running_ = false;
  std::thread thread_;
  uint64_t sum_gpu_ = 0, sum_mem_ = 0;
  uint32_t samples_ = 0;
};

}  // namespace spiral::gpu
