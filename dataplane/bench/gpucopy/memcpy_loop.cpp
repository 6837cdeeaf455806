// spiral-memcpy-loop: the reference the copy bench is compared with (docs/benchmarks/gpucopy.md):
// nothing but a loop of plain, synchronous cudaMemcpy (or cudaMemcpyPeer) calls timed with the
// host's clock, as a user would write it. Deliberately shares no code with the bench.
//
//   spiral-memcpy-loop DIRECTION MEMORY ITERATIONS BYTES...     e.g.  h2d pinned 20 8388608 16777216
//   spiral-memcpy-loop peer SRC DST ITERATIONS BYTES...        e.g.  peer 0 1 20 8388608
// DIRECTION h2d|d2h|d2d, MEMORY pinned|pageable (ignored for d2d). Prints one line per size:
//   memcpy-loop h2d pinned 8388608 B: 123.45 us, 67.89 GB/s
//   memcpy-loop peer 0->1 p2p 8388608 B: 123.45 us, 67.89 GB/s   (p2p: peer access enabled, as
//   a user would where cudaDeviceCanAccessPeer allows; else "staged")
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

namespace {

// cudaMemcpyPeer from GPU src to GPU dst, each size `iterations` times after 2 untimed copies.
int peer_loop(int src, int dst, int iterations, int first, int argc, char** argv) {
  size_t bytes = 0;
  for (int a = first; a < argc; ++a) bytes = std::max<size_t>(bytes, std::strtoull(argv[a], nullptr, 10));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2 || src >= count || dst >= count) return 77;
  void *from, *to;
  int can = 0;
  CHECK(cudaDeviceCanAccessPeer(&can, src, dst));
  CHECK(cudaSetDevice(dst));
  CHECK(cudaMalloc(&to, bytes));
  CHECK(cudaSetDevice(src));
  CHECK(cudaMalloc(&from, bytes));
  CHECK(cudaMemset(from, 1, bytes));
  if (can) CHECK(cudaDeviceEnablePeerAccess(dst, 0));
  for (int a = first; a < argc; ++a) {
    const size_t size = std::strtoull(argv[a], nullptr, 10);
    for (int i = 0; i < 2; ++i) CHECK(cudaMemcpyPeer(to, dst, from, src, size));
    CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) CHECK(cudaMemcpyPeer(to, dst, from, src, size));
    CHECK(cudaDeviceSynchronize());  // cudaMemcpyPeer may return before the copy is done
    CHECK(cudaSetDevice(dst));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(src));
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iterations;
    std::printf("memcpy-loop peer %d->%d %s %zu B: %.2f us, %.2f GB/s\n", src, dst, can ? "p2p" : "staged", size, us,
                size / (us * 1e3));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 6 && std::string(argv[1]) == "peer")
    return peer_loop(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), 5, argc, argv);
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s h2d|d2h|d2d pinned|pageable ITERATIONS BYTES...\n       %s peer SRC DST ITERATIONS BYTES...\n",
                 argv[0], argv[0]);
    return 2;
  }
  const std::string direction = argv[1], memory = argv[2];
  const int iterations = std::atoi(argv[3]);
  size_t bytes = 0;  // the largest size: the buffers hold it
  for (int a = 4; a < argc; ++a) bytes = std::max<size_t>(bytes, std::strtoull(argv[a], nullptr, 10));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
  void *device_a, *device_b, *host;
  CHECK(cudaMalloc(&device_a, bytes));
  CHECK(cudaMalloc(&device_b, bytes));
  if (memory == "pinned") {
    CHECK(cudaMallocHost(&host, bytes));
  } else {
    host = std::malloc(bytes);
  }
  std::memset(host, 1, bytes);
  void* dst = device_a;
  const void* src = host;
  cudaMemcpyKind kind = cudaMemcpyHostToDevice;
  if (direction == "d2h") {
    dst = host;
    src = device_a;
    kind = cudaMemcpyDeviceToHost;
  } else if (direction == "d2d") {
    dst = device_b;
    src = device_a;
    kind = cudaMemcpyDeviceToDevice;
  }
  for (int a = 4; a < argc; ++a) {
    const size_t size = std::strtoull(argv[a], nullptr, 10);
    for (int i = 0; i < 2; ++i) CHECK(cudaMemcpy(dst, src, size, kind));
    CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) CHECK(cudaMemcpy(dst, src, size, kind));
    CHECK(cudaDeviceSynchronize());
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iterations;
    std::printf("memcpy-loop %s %s %zu B: %.2f us, %.2f GB/s\n", direction.c_str(), memory.c_str(), size, us,
                size / (us * 1e3));
  }
  return 0;
}
