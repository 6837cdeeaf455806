#pragma once
// The GPU receive path as a transport sees it. A receiver asks for pinned host space, receives
// into it and says what arrived; the path assembles contiguous device windows from it and runs
// the workload on each (docs/gpu-workloads.md). Two flavours: in-order streams
// (TCP, RoCE) and sequenced datagrams (UDP, raw Ethernet). Receivers reach it through
// gpu/receiver.hpp (GpuReceiver), processed windows leave through gpu/window_sink.hpp.
//
// Threading: an assembler belongs to one receive thread. Its calls return at once, except the
// one that hands a window over while max_in_flight windows are still on the GPU (commit(),
// end_burst(), space() when it must close a full window, finish()): it waits for the oldest,
// a counted stall.
// CUDA-free: a build without CUDA links an open_receive_path() that refuses.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "config/cell.hpp"
#include "engine/phase.hpp"
#include "gpu/report.hpp"
#include "gpu/window_sink.hpp"
#include "memory/region.hpp"

namespace spiral::gpu {

// In-order transports: a window is the next window_bytes of the stream.
class StreamAssembler {
 public:
  virtual ~StreamAssembler() = default;
  // Where the next bytes go: pinned host memory, never empty.
  virtual std::span<std::byte> space() = 0;
  // The first `bytes` of space() were filled; a full window goes to the GPU.
  virtual void commit(size_t bytes) = 0;
  // End of stream: the partial window goes to the GPU (zero-filled tail); waits for every window.
  virtual void finish() = 0;
  // Ends GPU work that would outlive the stream (the stream ring's drain kernel) without waiting
  // for windows; finish() does it too. Called on every assembler before any is destroyed: a
  // drain still running would keep another pipeline's cudaFree from returning.
  virtual void stop() {}
};

// Where a datagram's sequence number sits and what is payload.
struct DatagramLayout {
  uint32_t datagram_bytes = 0;  // every datagram of ours has this length
  uint32_t header_bytes = 0;    // leading bytes left out of the window
  uint32_t seq_offset = 0;      // offset of the 64-bit little-endian sequence number
};

// Datagrams the GPU reads where they were received (raw Ethernet's mbufs in host_pinned memory):
// no staging copy. Every datagram lies in `region` (registered with CUDA); a received buffer is
// handed back through `release` only once no window will read it any more.
struct InPlace {
  const memory::Region* region = nullptr;
  std::function<void(std::span<void* const> frames)> release;
};

// Sequenced datagrams: window k holds sequence numbers [k*slots, (k+1)*slots), each payload in
// its slot, holes zero-filled (the FLOPs stay constant), duplicates ignored (first arrival wins).
class DatagramAssembler {
 public:
  virtual ~DatagramAssembler() = default;
  // Pinned room for one burst of `bytes`; the datagrams stay where they were received.
  virtual std::byte* space(size_t bytes) = 0;
  // Datagrams the current window still expects (>= 1). A burst no longer than this never
  // straddles two windows in order, so nothing needs copying.
  virtual uint32_t room() const = 0;
  // One datagram of ours inside the current burst's space (others are simply not added).
  virtual void add(const std::byte* datagram, uint64_t seq) = 0;
  // The burst took the first `used` bytes of space(); completes windows as needed.
  virtual void end_burst(size_t used) = 0;
  // In-place assemblers (made with an InPlace): one datagram of ours at `datagram` (inside
  // InPlace::region) whose receive buffer `frame` is held until the window that reads it
  // completed on the GPU, or released at once when no window will read it (late, overflow).
  // Completes windows as needed. space(), add() and end_burst() are for staged assemblers.
  virtual void add_in_place(const std::byte* datagram, uint64_t seq, void* frame) = 0;
  // The partial window goes to the GPU; waits for every window (in place: releases every frame).
  virtual void finish() = 0;
};

class ReceivePath {
 public:
  virtual ~ReceivePath() = default;
  virtual std::unique_ptr<StreamAssembler> stream_assembler() = 0;
  // `stride`: bytes per receive buffer (one datagram, or several with GRO);
  // `burst_buffers`: receive buffers per burst at most.
  // `in_place`: the datagrams are read where they were received (no staging copy).
  virtual std::unique_ptr<DatagramAssembler> datagram_assembler(const DatagramLayout& layout, size_t stride,
                                                                uint32_t burst_buffers,
                                                                const InPlace* in_place = nullptr) = 0;
  // The output side: assemblers made after this call hand each processed window to `sink`
  // (null: nobody), which must outlive them.
  virtual void set_window_sink(WindowSink* sink) = 0;
  // GPU utilisation is sampled over the measure phase.
  virtual void set_phase(Phase phase) = 0;
  // The counters of every assembler made here (final once they finished) and the utilisation.
  virtual GpuReport report() const = 0;
};

// Opens the first visible GPU for a cell whose workload is not none. Throws BadInput when this
// build has no CUDA or no GPU is usable, with the reason.
std::unique_ptr<ReceivePath> open_receive_path(const Cell& cell);

// Assembled bytes per window for a cell: workload_batch_bytes, or 8 MiB.
constexpr uint64_t kDefaultWindowBytes = 8u << 20;
inline uint64_t window_bytes(const Cell& cell) {
  return cell.workload_batch_bytes ? cell.workload_batch_bytes : kDefaultWindowBytes;
}

// Engines with a GPU path implement this; the run driver finds it with dynamic_cast, so the
// Engine interface stays transport- and GPU-agnostic.
class GpuReporting {
 public:
  virtual ~GpuReporting() = default;
  virtual GpuReport gpu_report() const = 0;
};

}  // namespace spiral::gpu
