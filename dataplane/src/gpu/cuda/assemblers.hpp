#pragma once
// The assemblers of src/gpu/receive_path.hpp on top of a Pipeline.
#include <functional>
#include <vector>

#include "gpu/cuda/pipeline.hpp"
#include "gpu/cuda/stream_ring.hpp"
#include "gpu/datagram_windower.hpp"
#include "gpu/held_frames.hpp"
#include "gpu/receive_path.hpp"

namespace spiral::gpu {

// Receives the queue's counters after every window (the owner sums them for the report).
using CounterSink = std::function<void(const PipelineCounters&)>;

class PipelineStreamAssembler final : public StreamAssembler {
 public:
  // ring: the stream goes through a StreamRing into the device windows (off: a pinned staging
  // window and one H2D copy per window).
  PipelineStreamAssembler(PipelineConfig config, CounterSink publish, RingShape ring = {});
  ~PipelineStreamAssembler() override;
  std::span<std::byte> space() override;
  void commit(size_t bytes) override;
  void finish() override;
  void stop() override;
  Pipeline& pipeline() { return *pipe_; }

 private:
  void publish();

  RingShape ring_shape_;
  std::unique_ptr<Pipeline> pipe_;
  std::unique_ptr<StreamRing> ring_;  // launched at the first space(), after every pipeline was made
  CounterSink publish_;
  uint64_t used_ = 0;
};

class PipelineDatagramAssembler final : public DatagramAssembler {
 public:
  // config: reorder fields are set here from the layout; window_bytes becomes slots * slot_bytes.
  // in_place: datagrams are read where they were received (see InPlace); stride and
  // burst_buffers then only size the slack for duplicates.
  PipelineDatagramAssembler(PipelineConfig config, const DatagramLayout& layout, size_t stride,
                            uint32_t burst_buffers, CounterSink publish, const InPlace* in_place = nullptr);
  std::byte* space(size_t bytes) override;
  uint32_t room() const override { return windower_.room(); }
  void add(const std::byte* datagram, uint64_t seq) override;
  void end_burst(size_t used) override;
  void add_in_place(const std::byte* datagram, uint64_t seq, void* frame) override;
  void finish() override;
  Pipeline& pipeline() { return *pipe_; }

  // Window geometry for a layout: slots per window for window_bytes of payload.
  static uint32_t slots_for(uint64_t window_bytes, const DatagramLayout& layout);

 private:
  struct Beyond {
    const std::byte* data;
    uint64_t seq;
  };
  void close_window();
  void close_window_in_place();
  void place_in_place(const std::byte* datagram, uint64_t seq, void* frame);
  void release_now(void* frame);
  void publish();

  struct Pending {  // in place: a datagram of a later window, still in its receive buffer
    const std::byte* data;
    uint64_t seq;
    void* frame;
  };

  DatagramLayout layout_;
  DatagramWindower windower_;
  // in place (declared before pipe_, so it goes after the pipeline waited for the GPU)
  const std::byte* in_place_host_ = nullptr;
  std::function<void(std::span<void* const>)> release_;
  std::unique_ptr<HeldFrames> held_;
  std::vector<Pending> pending_, waiting_;
  std::unique_ptr<Pipeline> pipe_;
  CounterSink publish_;
  uint64_t capacity_ = 0;    // staging bytes
  uint32_t max_datagrams_ = 0;
  size_t burst_datagrams_ = 0;  // datagrams one burst can hold
  uint64_t used_ = 0;        // staging bytes taken by this window's bursts
  uint32_t count_ = 0;       // datagrams of this window staged
  std::vector<Beyond> beyond_;    // this burst's datagrams of later windows
  std::vector<std::byte> spill_;  // their copy, so the staging they arrived in can be recycled
  uint64_t late_ = 0, carried_ = 0;
};

}  // namespace spiral::gpu
