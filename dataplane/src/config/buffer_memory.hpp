#pragma once
// Where a transport's data buffers live; shared by raw (mbuf data) and roce (registered memory).
// host: ordinary process memory (for raw, DPDK's own, hugepages or not); host_pinned: that memory
// page-locked (and, in CUDA builds, registered with CUDA so the GPU reads it in place); device:
// GPU memory the NIC reaches directly (GPUDirect). device needs a CUDA build and a physical NIC.
namespace spiral {

class ObjectReader;

enum class BufferMemory { host, host_pinned, device };
const char* to_string(BufferMemory m);

// The cell key "memory": host | host_pinned | device, default host (for the kinds that own it).
BufferMemory parse_buffer_memory(const ObjectReader& r);

}  // namespace spiral
