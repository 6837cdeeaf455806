#pragma once
// Whether this binary carries the CUDA receive path (CMake: SPIRAL_WITH_CUDA, src/gpu/gpu.cmake
// defines SPIRAL_HAVE_CUDA=1 in CUDA builds and nothing otherwise).
namespace spiral::gpu {
#ifdef SPIRAL_HAVE_CUDA
inline constexpr bool kBuiltWithCuda = true;
#else
inline constexpr bool kBuiltWithCuda = false;
#endif
}  // namespace spiral::gpu
