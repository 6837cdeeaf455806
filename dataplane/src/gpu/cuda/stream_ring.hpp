#pragma once
// The stream ring: how an in-order stream (TCP, RoCE) reaches the GPU without the receive
// thread's copy going to memory that is no longer in the CPU's cache. The receive thread fills
// a few chunks of a small ring of mapped host memory that stays in cache, and posts each full
// chunk with two stores; a persistent kernel (gpu/cuda/ring_drain.hpp) copies it into the
// window on the device and counts it done. No CUDA call per chunk: a window's work waits for its
// last chunk on the GPU itself, on a flag the drain stores when that chunk carried one (one
// launch per window, gpu/cuda/pipeline.hpp), or else through cuStreamWaitValue32 on the count.
//
// Without the ring the stream lands in a pinned staging buffer as large as a window, rotated
// through max_in_flight + 1 windows, and one H2D copy per window moves it: recv() then writes to
// memory outside every cache and costs ~1.5x as much (docs/benchmarks/gpu.md, "The TCP gap").
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "gpu/cuda/resources.hpp"
#include "gpu/cuda/ring_drain.hpp"
#include "memory/region.hpp"

namespace spiral::gpu {

struct RingShape {
  uint32_t slots = 0;        // 0: no ring (staging and one H2D copy per window)
  uint32_t chunk_bytes = 0;  // multiple of 16
  uint32_t blocks = 0;       // drain kernel blocks sharing each chunk
  uint32_t threads = 0;      // per block
  // The slots in write-combined pinned memory (cudaHostAllocWriteCombined) instead of cached
  // memory; the descriptors stay cached. A benchmark knob: SPIRAL_GPU_RING_MEMORY=wc.
  bool write_combined = false;
  bool on() const { return slots != 0; }
};

// The shape for stream assemblers: SPIRAL_GPU_STREAM_RING, "off" or SLOTSxCHUNK_KIBxBLOCKS
// (a benchmark knob, hack/gpu/tcp-gap.sh), else the default measured best on an H200.
RingShape stream_ring_shape();
RingShape parse_ring_shape(const std::string& text);  // throws BadInput with what to write

class StreamRing {
 public:
  explicit StreamRing(RingShape shape);  // allocates and launches the drain; throws CudaError
  ~StreamRing();                          // stop(), then frees
  StreamRing(const StreamRing&) = delete;
  StreamRing& operator=(const StreamRing&) = delete;

  // Where the next received bytes go: the rest of the current chunk, at most `room` (> 0) bytes.
  // Starting a chunk waits (counted) while the GPU has not yet copied the slot's previous one.
  std::span<std::byte> space(uint64_t room);
  // The first `bytes` of space() were filled; they go to device address `dst` onward. A full
  // chunk is posted at once, and so is one given a `signal` (the window's last bytes): the drain
  // stores 1 at that device address once this chunk and every one before it were copied.
  void commit(size_t bytes, std::byte* dst, uint32_t* signal = nullptr);
  // Posts the current chunk, full or not (a window's last bytes). With a `signal`, posts even
  // an empty chunk, so that the window is signalled though its bytes went in earlier chunks.
  void flush(uint32_t* signal = nullptr);
  // `stream`'s later work waits, on the GPU, until every chunk posted so far was copied.
  void order_after(cudaStream_t stream);
  // Waits on the host until every posted chunk was copied.
  void drain();
  // Ends the drain once it copied what was posted (no space() after this). Frees nothing:
  // cudaFree waits for every kernel, so with several rings all are stopped before any is freed.
  void stop();

  uint64_t waits() const { return waits_; }
  uint64_t wait_ns() const { return wait_ns_; }

 private:
  uint32_t done() const;
  void wait_done(uint32_t chunks);  // until `done` >= chunks

  void post(uint32_t* signal);

  RingShape shape_;
  std::unique_ptr<memory::Region> region_;  // [RingControl, 256-aligned][slots x chunk_bytes]
  PinnedBuffer write_combined_;             // SPIRAL_GPU_RING_MEMORY=wc: the slots, here instead
  RingControl* control_ = nullptr;          // host address
  std::byte* ring_ = nullptr;               // host address of slot 0
  DeviceBuffer arrivals_;
  Stream stream_;
  uint32_t posted_ = 0;       // chunks posted
  uint32_t fill_ = 0;         // bytes in the current chunk
  std::byte* chunk_dst_ = nullptr;
  bool running_ = false;
  bool host_waits_ = false;  // cuStreamWaitValue32 refused once: order_after() waits on the host
  uint64_t waits_ = 0, wait_ns_ = 0;
};

}  // namespace spiral::gpu
