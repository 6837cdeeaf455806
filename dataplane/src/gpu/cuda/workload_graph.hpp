#pragma once
// A window slot's workload call as one CUDA graph. The pipeline captures run_into(window, output)
// once per slot at construction and then starts each window's workload with one cudaGraphLaunch,
// instead of the workload's own launches on the receive thread (cuBLAS and cuFFT do host work of
// several microseconds per call; at 1 MiB windows a window closes every ~170 us).
#include <cstddef>
#include <functional>
#include <string>

#include "gpu/cuda/resources.hpp"
#include "gpu/cuda/workloads.hpp"

namespace spiral::gpu {

// SPIRAL_GPU_GRAPH: unset, empty or "on" = graphs; "off" = the workload is called directly each
// window (a benchmark knob: hack/gpu/tcp-gap.sh's W@nograph). Read once; anything else throws
// BadInput.
bool workload_graphs_on();

// Captures what `enqueue` puts on `stream` and instantiates it. Where CUDA or a library refuses
// the capture, returns an empty GraphExec and says why in `why`; the stream is usable again and
// nothing was enqueued on it.
GraphExec capture_graph(const std::function<void()>& enqueue, cudaStream_t stream, std::string& why);

// Captures workload.run_into(window, out) on `stream` (the workload's own) and instantiates it.
// Where CUDA or the library refuses the capture, returns an empty GraphExec and says why in
// `why`; the stream is usable again and nothing was enqueued on it.
GraphExec capture_workload(Workload& workload, const std::byte* window, std::byte* out, cudaStream_t stream,
                           std::string& why);

}  // namespace spiral::gpu
