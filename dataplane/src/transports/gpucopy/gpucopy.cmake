# The copy bench (host<->device per GPU, GPU to GPU, all GPUs with the host), included by
# dataplane/CMakeLists.txt after src/gpu/gpu.cmake: the spec, names, summary, NVML path
# classification and sysfs NUMA lookup everywhere; the engines with CUDA.
set(GPUCOPY_DIR src/transports/gpucopy)
target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/copy_spec.cpp ${GPUCOPY_DIR}/summary_part.cpp
                                   ${GPUCOPY_DIR}/peer_spec.cpp ${GPUCOPY_DIR}/peer_summary.cpp
                                   ${GPUCOPY_DIR}/peer_path.cpp ${GPUCOPY_DIR}/local_spec.cpp
                                   ${GPUCOPY_DIR}/gpucopy_options.cpp ${GPUCOPY_DIR}/gpucopy_kind.cpp)
if(NOT SPIRAL_HAVE_CUDA)
  target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/cell_run_unavailable.cpp)  # the kind refuses to run
  return()
endif()
# The kernels (C++17 for nvcc) in their own library, as transport nccl's
add_library(spiral_gpucopy_cuda STATIC ${GPUCOPY_DIR}/cuda/peer_kernels.cu ${GPUCOPY_DIR}/cuda/local_kernels.cu)
target_include_directories(spiral_gpucopy_cuda PUBLIC src)
target_link_libraries(spiral_gpucopy_cuda PUBLIC CUDA::cudart)
target_compile_options(spiral_gpucopy_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra $<$<BOOL:${SPIRAL_WERROR}>:-Werror=all-warnings>>)
set_target_properties(spiral_gpucopy_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/cuda/copy_engine.cpp ${GPUCOPY_DIR}/cuda/lanes.cpp
                                   ${GPUCOPY_DIR}/cuda/peer_engine.cpp ${GPUCOPY_DIR}/cuda/host_aggregate.cpp
                                   ${GPUCOPY_DIR}/cuda/cell_run.cpp ${GPUCOPY_DIR}/cuda/local_engine.cpp)
target_link_libraries(spiral_core PUBLIC spiral_gpucopy_cuda)
# spiral-gpucopy-bench: the bench per GPU and between GPUs; spiral-memcpy-loop: the plain
# cudaMemcpy / cudaMemcpyPeer loop it is compared with (docs/benchmarks/gpucopy.md)
add_executable(spiral-gpucopy-bench bench/gpucopy/gpucopy_bench.cpp bench/gpucopy/peer_print.cpp)
target_link_libraries(spiral-gpucopy-bench PRIVATE spiral_core)
add_executable(spiral-memcpy-loop bench/gpucopy/memcpy_loop.cpp)
target_link_libraries(spiral-memcpy-loop PRIVATE CUDA::cudart)
