#include "gpu/cuda/assemblers.hpp"

#include <algorithm>
#include <cstring>

#include "sys/errors.hpp"

namespace spiral::gpu {

PipelineStreamAssembler::PipelineStreamAssembler(PipelineConfig config, CounterSink publish, RingShape ring)
    : ring_shape_(ring), publish_(std::move(publish)) {
  if (ring_shape_.on()) {
    config.order_fill = [this](cudaStream_t compute) { ring_->order_after(compute); };
    config.fill_signal = true;  // or the drain flags each window's end, and the window waits for that on the GPU
  }
  pipe_ = std::make_unique<Pipeline>(std::move(config));
}

// The drain must end before the pipeline's buffers are freed: cudaFree waits for every kernel
// (with several queues, GpuReceiver stops every ring before destroying any assembler).
PipelineStreamAssembler::~PipelineStreamAssembler() { stop(); }

std::span<std::byte> PipelineStreamAssembler::space() {
  const uint64_t room = pipe_->config().window_bytes - used_;
  if (!ring_shape_.on()) return {pipe_->staging() + used_, room};
  // Launched here, not in the constructor: a drain running while another queue's pipeline is
  // made would never let that pipeline's device-wide synchronisation return.
  if (!ring_) ring_ = std::make_unique<StreamRing>(ring_shape_);
  return ring_->space(room);
}

void PipelineStreamAssembler::commit(size_t bytes) {
  const uint64_t window = pipe_->config().window_bytes;
  // the window's last bytes carry its flag (one launch per window; null otherwise)
  if (ring_) ring_->commit(bytes, pipe_->window() + used_, used_ + bytes >= window ? pipe_->fill_flag() : nullptr);
  used_ += bytes;
  if (used_ < window) return;
  if (ring_) ring_->flush();  // posted already when it carried the flag
  pipe_->submit(used_);
  used_ = 0;
  publish();
}

void PipelineStreamAssembler::finish() {
  if (ring_) ring_->flush(used_ ? pipe_->fill_flag() : nullptr);
  if (used_) pipe_->submit(used_);
  used_ = 0;
  pipe_->finish();
  stop();
  publish();
}

void PipelineStreamAssembler::stop() {
  if (ring_) ring_->stop();
}

// Waits for a free ring slot count as stalls: the receive thread waited for the GPU either way.
void PipelineStreamAssembler::publish() {
  PipelineCounters c = pipe_->counters();
  if (ring_) {
    c.stalls += ring_->waits();
    c.stall_ns += ring_->wait_ns();
  }
  publish_(c);
}

uint32_t PipelineDatagramAssembler::slots_for(uint64_t window_bytes, const DatagramLayout& layout) {
  const uint64_t slot = std::max<uint32_t>(1, layout.datagram_bytes - layout.header_bytes);
  return static_cast<uint32_t>(std::clamp<uint64_t>(window_bytes / slot, 1, 1u << 24));
}

PipelineDatagramAssembler::PipelineDatagramAssembler(PipelineConfig config, const DatagramLayout& layout,
                                                     size_t stride, uint32_t burst_buffers, CounterSink publish,
                                                     const InPlace* in_place)
    : layout_(layout), windower_(slots_for(config.window_bytes, layout)), publish_(std::move(publish)) {
  if (in_place) {
    if (!in_place->region || !in_place->region->device_pointer() || !in_place->region->data())
      throw BadInput("in-place datagrams need host memory registered with CUDA (host_pinned)");
    in_place_host_ = in_place->region->data();
    release_ = in_place->release;
    held_ = std::make_unique<HeldFrames>(release_);
    // the offsets of one window plus slack for duplicates; no datagram bytes in the staging
    max_datagrams_ = windower_.slots() + 2 * burst_buffers;
    config.reorder = true;
    config.slots = windower_.slots();
    config.slot_bytes = layout.datagram_bytes - layout.header_bytes;
    config.header_bytes = layout.header_bytes;
    config.seq_offset = layout.seq_offset;
    config.window_bytes = uint64_t{config.slots} * config.slot_bytes;
    config.staging_bytes = 256;
    config.max_datagrams = max_datagrams_;
    config.in_place_packets = in_place->region->device_pointer();
    HeldFrames* held = held_.get();
    config.on_complete = [held](uint64_t token) { held->release(token); };
    pipe_ = std::make_unique<Pipeline>(std::move(config));
    pending_.reserve(size_t{burst_buffers} + 16);
    waiting_.reserve(size_t{burst_buffers} + 16);
    return;
  }
  const uint32_t slots = windower_.slots();
  const uint64_t per_buffer = std::max<uint64_t>(1, stride / layout.datagram_bytes);
  // a whole window in order, plus two bursts of slack for duplicates and strays
  capacity_ = ((slots + per_buffer - 1) / per_buffer + 2ull * burst_buffers) * stride;
  max_datagrams_ = static_cast<uint32_t>(capacity_ / layout.datagram_bytes + 1);
  config.reorder = true;
  config.slots = slots;
  config.slot_bytes = layout.datagram_bytes - layout.header_bytes;
  config.header_bytes = layout.header_bytes;
  config.seq_offset = layout.seq_offset;
  config.window_bytes = uint64_t{slots} * config.slot_bytes;
  config.staging_bytes = capacity_;
  config.max_datagrams = max_datagrams_;
  pipe_ = std::make_unique<Pipeline>(std::move(config));
  burst_datagrams_ = size_t{burst_buffers} * per_buffer;
  beyond_.reserve(burst_datagrams_);
  spill_.resize(burst_datagrams_ * layout.datagram_bytes);
}

std::byte* PipelineDatagramAssembler::space(size_t bytes) {
  if (used_ + bytes > capacity_) {
    // Only a flood of duplicates or strays gets here: the window goes as it is, and what of it
    // arrives later counts as late.
    if (count_) close_window();
    used_ = 0;
  }
  return pipe_->staging() + used_;
}

void PipelineDatagramAssembler::add(const std::byte* datagram, uint64_t seq) {
  switch (windower_.place(seq)) {
    case DatagramWindower::Place::current:
      if (count_ < max_datagrams_) pipe_->offsets()[count_++] = static_cast<uint32_t>(datagram - pipe_->staging());
      break;
    case DatagramWindower::Place::beyond:
      if (beyond_.size() < burst_datagrams_) beyond_.push_back({datagram, seq});
      break;
    case DatagramWindower::Place::late:
      ++late_;
      break;
  }
}

void PipelineDatagramAssembler::end_burst(size_t used) {
  used_ += used;
  if (!beyond_.empty()) {
    // Copy them out first: the staging they sit in goes to the GPU with this window.
    for (size_t i = 0; i < beyond_.size(); ++i) {
      std::byte* at = spill_.data() + i * layout_.datagram_bytes;
      std::memcpy(at, beyond_[i].data, layout_.datagram_bytes);
      beyond_[i].data = at;
    }
  }
  while (windower_.complete()) close_window();
}

void PipelineDatagramAssembler::close_window() {
  if (count_) {
    pipe_->submit(used_, count_, windower_.base());
    publish();
  }
  used_ = 0;
  count_ = 0;
  if (beyond_.empty()) {
    windower_.advance();
    return;
  }
  uint64_t first = beyond_.front().seq;
  for (const Beyond& b : beyond_) first = std::min(first, b.seq);
  windower_.advance_to(first);
  // This window's datagrams that came early, in the previous window's burst: copied in.
  size_t kept = 0;
  for (const Beyond& b : beyond_) {
    switch (windower_.place(b.seq)) {
      case DatagramWindower::Place::current:
        std::memcpy(pipe_->staging() + used_, b.data, layout_.datagram_bytes);
        pipe_->offsets()[count_++] = static_cast<uint32_t>(used_);
        used_ += layout_.datagram_bytes;
        ++carried_;
        break;
      case DatagramWindower::Place::beyond:
        beyond_[kept++] = b;  // a still later window: kept in the spill, which nothing reuses yet
        break;
      case DatagramWindower::Place::late:
        ++late_;
        break;
    }
  }
  beyond_.resize(kept);
}

void PipelineDatagramAssembler::finish() {
  if (held_) {
    if (count_) pipe_->submit(0, count_, windower_.base(), held_->seal());
    count_ = 0;
    for (const Pending& p : pending_) release_now(p.frame);  // their window never comes
    pending_.clear();
    pipe_->finish();      // every window completed: every sealed frame released
    held_->release_all();
    publish();
    return;
  }
  if (count_) pipe_->submit(used_, count_, windower_.base());
  count_ = 0;
  used_ = 0;
  pipe_->finish();
  publish();
}

// --- in place: the offsets point into the registered receive memory; frames are held ---

void PipelineDatagramAssembler::release_now(void* frame) {
  void* one[1] = {frame};
  release_(std::span<void* const>(one, 1));
}

void PipelineDatagramAssembler::place_in_place(const std::byte* datagram, uint64_t seq, void* frame) {
  switch (windower_.place(seq)) {
    case DatagramWindower::Place::current:
      if (count_ < max_datagrams_) {
        pipe_->offsets()[count_++] = static_cast<uint32_t>(datagram - in_place_host_);
        held_->hold(frame);
      } else {
        release_now(frame);  // a flood of duplicates: the window has no room for more offsets
      }
      break;
    case DatagramWindower::Place::beyond:
      pending_.push_back({datagram, seq, frame});
      break;
    case DatagramWindower::Place::late:
      ++late_;
      release_now(frame);
      break;
  }
}

void PipelineDatagramAssembler::add_in_place(const std::byte* datagram, uint64_t seq, void* frame) {
  if (!held_) throw RunFailure("add_in_place on a staged datagram assembler");
  place_in_place(datagram, seq, frame);
  while (windower_.complete()) close_window_in_place();
}

void PipelineDatagramAssembler::close_window_in_place() {
  if (count_) {
    // the frames this window reads go back to their pool once its kernels completed
    pipe_->submit(0, count_, windower_.base(), held_->seal());
    publish();
  }
  count_ = 0;
  if (pending_.empty()) {
    windower_.advance();
    return;
  }
  uint64_t first = pending_.front().seq;
  for (const Pending& p : pending_) first = std::min(first, p.seq);
  windower_.advance_to(first);
  // the pending ones are placed again against the new window: current (held), later, or late
  waiting_.swap(pending_);
  for (const Pending& p : waiting_) place_in_place(p.data, p.seq, p.frame);
  waiting_.clear();
}

void PipelineDatagramAssembler::publish() {
  PipelineCounters c = pipe_->counters();
  c.late += late_;
  c.carried += carried_;
  publish_(c);
}

}  // namespace spiral::gpu
