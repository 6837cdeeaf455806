// make_burst_work() of the CUDA build: the control block in mapped host memory, one stream per
// pipeline, and the three ways of starting the MAC-swap kernels (forward_kernels.cu).
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "gpu/cuda/check.hpp"
#include "gpu/cuda/device.hpp"
#include "gpu/cuda/forward_kernels.hpp"
#include "gpu/forward_work.hpp"
#include "sys/errors.hpp"

namespace spiral::gpu {

namespace {

constexpr auto kStopTimeout = std::chrono::seconds(2);

// The host and device views of one mapped allocation, laid out as ForwardControl says.
class MappedControl {
 public:
  explicit MappedControl(const BurstWorkConfig& c) {
    const size_t frames = size_t{c.slots} * c.burst * sizeof(uint64_t);
    bytes_ = frames + 3 * size_t{c.slots} * sizeof(uint32_t) + 64;
    SPIRAL_CUDA(cudaHostAlloc(&host_, bytes_, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(host_, 0, bytes_);
    void* device = nullptr;
    SPIRAL_CUDA(cudaHostGetDevicePointer(&device, host_, 0));
    host = view(static_cast<char*>(host_), c);
    this->device = view(static_cast<char*>(device), c);
  }
  ~MappedControl() {
    if (leak_) return;  // a kernel may still read it
    cudaFreeHost(host_);
  }
  void leak() { leak_ = true; }
  ForwardControl host{}, device{};

 private:
  static ForwardControl view(char* base, const BurstWorkConfig& c) {
    ForwardControl v{};
    v.frames = reinterpret_cast<uint64_t*>(base);
    char* p = base + size_t{c.slots} * c.burst * sizeof(uint64_t);
    v.count = reinterpret_cast<uint32_t*>(p);
    v.ready = reinterpret_cast<volatile uint32_t*>(p + c.slots * sizeof(uint32_t));
    v.done = reinterpret_cast<volatile uint32_t*>(p + 2 * c.slots * sizeof(uint32_t));
    v.quit = reinterpret_cast<volatile uint32_t*>(p + 3 * c.slots * sizeof(uint32_t));
    v.bursts = reinterpret_cast<unsigned long long*>(p + 3 * c.slots * sizeof(uint32_t) + 8);
    v.slots = c.slots;
    v.burst = c.burst;
    v.work_ns = c.work_ns;
    return v;
  }
  void* host_ = nullptr;
  size_t bytes_ = 0;
  bool leak_ = false;
};

class CudaBurstWork final : public BurstWork {
 public:
  explicit CudaBurstWork(const BurstWorkConfig& c) : config_(c), control_(c), events_(c.slots, nullptr) {
    SPIRAL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    if (c.mode == BurstWorkMode::kernel) {
      for (auto& e : events_) SPIRAL_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    } else if (c.mode == BurstWorkMode::persistent) {
      launch_persistent(control_.device, stream_);
      SPIRAL_CUDA_LAUNCHED();
    } else {
      build_graphs();
    }
  }

  ~CudaBurstWork() override {
    stop();
    if (!clean_) {  // a kernel may still run: leave its memory and stream to the process's exit
      control_.leak();
      return;
    }
    for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
  }

  uint64_t* frames(uint32_t slot) override { return control_.host.frames + uint64_t{slot} * config_.burst; }

  void take(uint32_t slot) override {
    if (config_.mode != BurstWorkMode::graphs || slot % kGroup) return;
    SPIRAL_CUDA(cudaGraphLaunch(graphs_[slot / kGroup], stream_));
  }

  void submit(uint32_t slot, uint32_t count) override {
    control_.host.count[slot] = count;
    if (config_.mode == BurstWorkMode::kernel) {
      launch_swap_burst(control_.device.frames + uint64_t{slot} * config_.burst, count, config_.burst,
                        config_.work_ns, stream_);
      SPIRAL_CUDA_LAUNCHED();
      SPIRAL_CUDA(cudaEventRecord(events_[slot], stream_));
      return;
    }
    std::atomic_thread_fence(std::memory_order_release);  // addresses and count before the flag
    control_.host.ready[slot] = 1;
  }

  bool done(uint32_t slot) override {
    if (config_.mode == BurstWorkMode::kernel) {
      const cudaError_t e = cudaEventQuery(events_[slot]);
      if (e == cudaErrorNotReady) return false;
      SPIRAL_CUDA(e);
      ++kernel_bursts_;
      return true;
    }
    if (control_.host.done[slot] == 0) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    return true;
  }

  void release(uint32_t slot) override {
    if (config_.mode != BurstWorkMode::kernel) control_.host.done[slot] = 0;
  }

  bool stop() override {
    if (stopped_) return clean_;
    stopped_ = true;
    *control_.host.quit = 1;
    const auto until = std::chrono::steady_clock::now() + kStopTimeout;
    for (;;) {
      const cudaError_t e = cudaStreamQuery(stream_);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady || std::chrono::steady_clock::now() > until) return clean_ = false;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return clean_ = true;
  }

  uint64_t bursts_done() const override {
    return config_.mode == BurstWorkMode::kernel ? kernel_bursts_ : *control_.host.bursts;
  }

 private:
  static constexpr uint32_t kGroup = 8;

  // One graph per group of kGroup slots: kGroup nodes, each waiting for its slot's ready flag.
  void build_graphs() {
    for (uint32_t group = 0; group < config_.slots / kGroup; ++group) {
      cudaGraph_t graph = nullptr;
      SPIRAL_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      for (uint32_t i = 0; i < kGroup; ++i) launch_wait_and_swap(control_.device, group * kGroup + i, stream_);
      SPIRAL_CUDA(cudaStreamEndCapture(stream_, &graph));
      cudaGraphExec_t exec = nullptr;
      SPIRAL_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      SPIRAL_CUDA(cudaGraphDestroy(graph));
      graphs_.push_back(exec);
    }
  }

  BurstWorkConfig config_;
  MappedControl control_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<cudaGraphExec_t> graphs_;
  uint64_t kernel_bursts_ = 0;
  bool stopped_ = false, clean_ = true;
};

}  // namespace

std::unique_ptr<BurstWork> make_burst_work(const BurstWorkConfig& config) {
  std::string why;
  if (!probe_device(why)) throw BadInput("forward_work on the GPU needs a GPU: " + why);
  if (config.slots % 8 || config.burst == 0) throw BadInput("forward: slots must be a multiple of 8, burst > 0");
  try {
    return std::make_unique<CudaBurstWork>(config);
  } catch (const CudaError& e) {
    throw RunFailure(std::string("forward GPU work: ") + e.what());
  }
}

void require_burst_work_gpu(const std::string& what) {
  std::string why;
  if (!probe_device(why)) throw BadInput(what + " needs a GPU: " + why);
}

std::string burst_work_device_bus_id() {
  std::string why;
  auto device = probe_device(why);
  return device ? device->pci_bus_id : "";
}

}  // namespace spiral::gpu
