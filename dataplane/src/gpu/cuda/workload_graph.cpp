#include "gpu/cuda/workload_graph.hpp"

#include "sys/env_switch.hpp"
#include "sys/errors.hpp"

namespace spiral::gpu {

bool workload_graphs_on() {
  static const bool on = env_switch("SPIRAL_GPU_GRAPH", true);
  return on;
}

GraphExec capture_workload(Workload& workload, const std::byte* window, std::byte* out, cudaStream_t stream,
                           std::string& why) {
  return capture_graph([&] { workload.run_into(window, out); }, stream, why);
}

GraphExec capture_graph(const std::function<void()>& enqueue, cudaStream_t stream, std::string& why) {
  // Thread-local: another thread's CUDA calls meanwhile (another queue's pipeline) neither break
  // this capture nor are refused because of it.
  cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    why = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(e);
    return {};
  }
  try {
    enqueue();
  } catch (const CudaError& refused) {  // the call failed under capture; the capture still ends below
    why = refused.what();
  }
  cudaGraph_t captured = nullptr;
  e = cudaStreamEndCapture(stream, &captured);
  const Graph graph = captured ? Graph(captured) : Graph();
  if (why.empty() && e != cudaSuccess) why = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e);
  if (!why.empty()) {
    (void)cudaGetLastError();  // a refused capture's error is not sticky: clear it for later calls
    return {};
  }
  cudaGraphExec_t exec = nullptr;
  e = cudaGraphInstantiate(&exec, graph.get(), 0);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
    return {};
  }
  return GraphExec(exec);
}

}  // namespace spiral::gpu
