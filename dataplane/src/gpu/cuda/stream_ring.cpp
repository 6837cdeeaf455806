#include "gpu/cuda/stream_ring.hpp"

#include <cudaTypedefs.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <thread>

#include "sys/env_switch.hpp"
#include "sys/errors.hpp"

namespace spiral::gpu {
namespace {

// 4 slots of 128 KiB (512 KiB, in a core's L2), each chunk copied by 4 blocks of 512 threads.
constexpr RingShape kDefaultShape{4, 128u << 10, 4, 512};
constexpr uint64_t kControlBytes = (sizeof(RingControl) + 255) / 256 * 256;

// cuStreamWaitValue32 without linking the driver library: the runtime hands out its entry.
PFN_cuStreamWaitValue32_v8000 stream_wait_value() {
  static const PFN_cuStreamWaitValue32_v8000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuStreamWaitValue32_v8000>(p);
  }();
  return fn;
}

}  // namespace

RingShape parse_ring_shape(const std::string& text) {
  if (text == "off") return {};
  static const std::regex form(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  RingShape s;
  if (std::regex_match(text, m, form)) {
    s.slots = static_cast<uint32_t>(std::stoul(m[1]));
    s.chunk_bytes = static_cast<uint32_t>(std::stoul(m[2])) << 10;
    s.blocks = static_cast<uint32_t>(std::stoul(m[3]));
    s.threads = kDefaultShape.threads;
  }
  if (s.slots < 2 || s.slots > kRingMaxSlots || s.chunk_bytes < (4u << 10) || s.chunk_bytes > (64u << 20) ||
      s.blocks < 1 || s.blocks > 64)
    throw BadInput("SPIRAL_GPU_STREAM_RING: expected \"off\" or SLOTSxCHUNK_KIBxBLOCKS (2-16 slots, 4-65536 KiB, "
                   "1-64 blocks, for example 4x128x4), got \"" + text + "\"");
  return s;
}

RingShape stream_ring_shape() {
  const char* v = std::getenv("SPIRAL_GPU_STREAM_RING");
  RingShape s = !v || !*v ? (stream_wait_value() ? kDefaultShape : RingShape{}) : parse_ring_shape(v);
  s.write_combined = env_switch("SPIRAL_GPU_RING_MEMORY", false, "wc", "cached");
  return s;
}

StreamRing::StreamRing(RingShape shape) : shape_(shape) {
  const uint64_t ring_bytes = uint64_t{shape.slots} * shape.chunk_bytes;
  region_ = memory::allocate({BufferMemory::host_pinned, kControlBytes + (shape.write_combined ? 0 : ring_bytes),
                              "GPU stream ring", memory::kRegisterCuda});
  std::memset(region_->data(), 0, kControlBytes);
  control_ = reinterpret_cast<RingControl*>(region_->data());
  ring_ = region_->data() + kControlBytes;
  const std::byte* ring_device = region_->device_pointer() + kControlBytes;
  if (shape.write_combined) {
    write_combined_ = pinned_buffer(ring_bytes, true, cudaHostAllocWriteCombined);
    ring_ = write_combined_.data();
    ring_device = device_pointer(write_combined_);
  }
  arrivals_ = device_buffer(sizeof(uint32_t) * shape.slots);
  stream_ = make_stream();
  // on the drain's own stream: nothing device-wide may wait while another queue's drain runs
  SPIRAL_CUDA(cudaMemsetAsync(arrivals_.data(), 0, arrivals_.size(), stream_.get()));
  RingDrainArgs a{reinterpret_cast<RingControl*>(region_->device_pointer()), ring_device, shape.slots,
                  shape.chunk_bytes, arrivals_.as<uint32_t>()};
  launch_ring_drain(a, shape.blocks, shape.threads, stream_.get());
  running_ = true;
}

StreamRing::~StreamRing() { stop(); }

void StreamRing::stop() {
  if (!running_) return;
  running_ = false;
  std::atomic_ref<uint32_t>(control_->stop).store(1, std::memory_order_release);
  (void)cudaStreamSynchronize(stream_.get());  // never throws: teardown; waits for this drain only
}

uint32_t StreamRing::done() const {
  return std::atomic_ref<uint32_t>(control_->done).load(std::memory_order_acquire);
}

void StreamRing::wait_done(uint32_t chunks) {
  if (static_cast<int32_t>(done() - chunks) >= 0) return;
  const auto start = std::chrono::steady_clock::now();
  uint32_t spins = 0;
  while (static_cast<int32_t>(done() - chunks) < 0) {
    if (++spins % 4096 == 0) {
      // a kernel that died leaves `done` where it is: surface its error instead of spinning
      const cudaError_t e = cudaStreamQuery(stream_.get());
      if (e != cudaErrorNotReady) SPIRAL_CUDA(e == cudaSuccess ? cudaErrorLaunchFailure : e);
      std::this_thread::yield();
    }
  }
  ++waits_;
  wait_ns_ += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

std::span<std::byte> StreamRing::space(uint64_t room) {
  if (fill_ == 0) wait_done(posted_ + 1 - shape_.slots);  // the slot's previous chunk (posted_ - slots) copied
  const uint32_t slot = posted_ % shape_.slots;
  const uint64_t n = std::min<uint64_t>(shape_.chunk_bytes - fill_, room);
  return {ring_ + uint64_t{slot} * shape_.chunk_bytes + fill_, n};
}

void StreamRing::commit(size_t bytes, std::byte* dst, uint32_t* signal) {
  if (!bytes) return;
  if (fill_ == 0) chunk_dst_ = dst;
  fill_ += static_cast<uint32_t>(bytes);
  if (fill_ == shape_.chunk_bytes || signal) post(signal);
}

void StreamRing::flush(uint32_t* signal) {
  if (fill_) {
    post(signal);
  } else if (signal) {  // the window's bytes all went in posted chunks: an empty one signals it
    wait_done(posted_ + 1 - shape_.slots);  // its slot, as space() would
    chunk_dst_ = nullptr;
    post(signal);
  }
}

void StreamRing::post(uint32_t* signal) {
  RingChunk& c = control_->chunk[posted_ % shape_.slots];
  c.dst = reinterpret_cast<uint64_t>(chunk_dst_);
  c.signal = reinterpret_cast<uint64_t>(signal);
  c.bytes = fill_;
  std::atomic_ref<uint32_t>(c.seq).store(posted_ + 1, std::memory_order_release);  // the kernel may go
  ++posted_;
  fill_ = 0;
}

void StreamRing::order_after(cudaStream_t stream) {
  if (static_cast<int32_t>(done() - posted_) >= 0) return;  // copied already: nothing to wait for
  auto wait = host_waits_ ? nullptr : stream_wait_value();
  const auto addr = reinterpret_cast<CUdeviceptr>(region_->device_pointer() + offsetof(RingControl, done));
  if (wait && wait(reinterpret_cast<CUstream>(stream), addr, posted_, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS) return;
  // No stream memory operations on this device or for this memory: the receive thread waits
  // for the window's last chunks itself (correct, a few microseconds per window slower).
  host_waits_ = true;
  drain();
}

void StreamRing::drain() { wait_done(posted_); }

}  // namespace spiral::gpu
