#pragma once
// Whether this binary carries the CUDA receive path (CMake: SPIRAL_WITH_CUDA, src/gpu/gpu.cmake).
#ifndef SPIRAL_HAVE_CUDA
#define SPIRAL_HAVE_CUDA 0
#endif

namespace spiral::gpu {
inline constexpr bool kBuiltWithCuda = SPIRAL_HAVE_CUDA != 0;
}  // namespace spiral::gpu
