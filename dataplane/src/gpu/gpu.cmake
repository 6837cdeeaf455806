# GPU workloads in the receive path (docs/gpu-workloads.md). Included by
# dataplane/CMakeLists.txt once spiral_core exists.
#
#   SPIRAL_WITH_CUDA=AUTO  CUDA when a CUDA compiler is found (nvcc on PATH or CMAKE_CUDA_COMPILER)
#                    ON    CUDA or a configure error;   OFF  never
# Without a GPU machine: hack/cuda-toolkit.sh installs the toolkit from PyPI and prints the arguments.
# Architectures: sm_90 (H100/H200) and sm_121 (GB10), each with PTX; override with
# -DCMAKE_CUDA_ARCHITECTURES.
set(SPIRAL_WITH_CUDA AUTO CACHE STRING "Build the CUDA receive path: AUTO, ON or OFF")
set_property(CACHE SPIRAL_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)

# CUDA-free parts, in every build: the report, the window bookkeeping, the CPU reference, NVML.
target_sources(spiral_core PRIVATE
  src/gpu/report.cpp
  src/gpu/assembly_reference.cpp
  src/gpu/nvml_sampler.cpp
  src/gpu/receiver.cpp
)
# What both spiral_core and the CUDA pipeline (spiral_gpu_cuda, linked after spiral_core) use: the
# memory provider, the window flight, the error kinds. A library of its own so the static link
# order resolves: spiral_core -> spiral_gpu_cuda -> spiral_memory.
add_library(spiral_memory STATIC src/sys/errors.cpp src/memory/region.cpp src/gpu/window_flight.cpp)
target_include_directories(spiral_memory PUBLIC src)
target_compile_options(spiral_memory PRIVATE -Wall -Wextra -Wpedantic $<$<BOOL:${SPIRAL_WERROR}>:-Werror>)
target_link_libraries(spiral_core PUBLIC spiral_memory)
target_link_libraries(spiral_core PUBLIC ${CMAKE_DL_LIBS})

set(SPIRAL_HAVE_CUDA OFF)
if(NOT SPIRAL_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(SPIRAL_HAVE_CUDA ON)
  elseif(SPIRAL_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SPIRAL_WITH_CUDA=ON but no CUDA compiler was found: pass -DCMAKE_CUDA_COMPILER=.../nvcc "
                        "(hack/cuda-toolkit.sh installs one and prints the arguments)")
  endif()
endif()

if(NOT SPIRAL_HAVE_CUDA)
  message(STATUS "spiral: GPU workloads off (SPIRAL_WITH_CUDA=${SPIRAL_WITH_CUDA}, no CUDA compiler)")
  target_sources(spiral_core PRIVATE src/gpu/receive_path_stub.cpp src/gpu/forward_work_stub.cpp)
  target_sources(spiral_memory PRIVATE src/memory/cuda_memory_stub.cpp)
  return()  # SPIRAL_HAVE_CUDA stays undefined: `#if SPIRAL_HAVE_CUDA` and `#ifdef` agree
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90 121)  # each real + PTX
endif()
# The default (Static) adds -lcudart_static next to CUDA::cudart; Shared wants an unversioned
# libcudart.so that the PyPI wheels lack: link CUDA::cudart ourselves.
set(CMAKE_CUDA_RUNTIME_LIBRARY None)
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "spiral: GPU workloads on: CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}, "
               "libraries in ${CUDAToolkit_LIBRARY_DIR}")
# nvcc reports the toolkit's lib dir as an implicit link dir, so CMake writes no RPATH for it.
list(APPEND CMAKE_BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")

add_library(spiral_gpu_cuda STATIC
  src/gpu/cuda/check.cpp
  src/gpu/cuda/device.cpp
  src/gpu/cuda/kernels.cu
  src/gpu/cuda/workloads.cu
  src/gpu/cuda/pipeline.cpp
  src/gpu/cuda/workload_graph.cpp
  src/gpu/cuda/assemblers.cpp
  src/gpu/cuda/stream_ring.cpp
  src/gpu/cuda/ring_drain.cu
  src/gpu/cuda/forward_kernels.cu
  src/gpu/cuda/forward_work.cpp
)
target_include_directories(spiral_gpu_cuda PUBLIC src generated)
target_link_libraries(spiral_gpu_cuda PUBLIC CUDA::cudart CUDA::cublas CUDA::cufft nlohmann_json::nlohmann_json)
target_compile_options(spiral_gpu_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic $<$<BOOL:${SPIRAL_WERROR}>:-Werror>>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra $<$<BOOL:${SPIRAL_WERROR}>:-Werror=all-warnings>>)
# .cu files are C++17 (CMake 3.25 knows no newer nvcc dialect); their headers avoid C++20.
set_target_properties(spiral_gpu_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)

target_sources(spiral_core PRIVATE src/gpu/cuda/receive_path_cuda.cpp)
target_sources(spiral_memory PRIVATE src/memory/cuda_memory_cuda.cpp)
target_link_libraries(spiral_memory PUBLIC CUDA::cudart)
target_link_libraries(spiral_gpu_cuda PUBLIC spiral_memory)
target_link_libraries(spiral_core PUBLIC spiral_gpu_cuda)
target_compile_definitions(spiral_core PUBLIC SPIRAL_HAVE_CUDA=1)

# Device-side tools: the benchmark (docs/benchmarks/gpu.md). Its tests are in tests/gpu.
add_executable(spiral-gpu-bench bench/gpu/gpu_bench.cpp)
target_link_libraries(spiral-gpu-bench PRIVATE spiral_core)
