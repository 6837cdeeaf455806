# The copy bench (host<->device per GPU, GPU to GPU, all GPUs with the host), included by
# dataplane/CMakeLists.txt after src/gpu/gpu.cmake: the spec, names, summary, NVML path
# classification and sysfs NUMA lookup everywhere; the engines with CUDA.
set(GPUCOPY_DIR src/transports/gpucopy)
target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/copy_spec.cpp ${GPUCOPY_DIR}/summary_part.cpp
                                   ${GPUCOPY_DIR}/peer_spec.cpp ${GPUCOPY_DIR}/peer_summary.cpp
                                   ${GPUCOPY_DIR}/peer_path.cpp
                                   ${GPUCOPY_DIR}/gpucopy_options.cpp ${GPUCOPY_DIR}/gpucopy_kind.cpp)
if(NOT SPIRAL_HAVE_CUDA)
  target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/cell_run_unavailable.cpp)  # the kind refuses to run
  return()
endif()
target_sources(spiral_core PRIVATE ${GPUCOPY_DIR}/cuda/copy_engine.cpp ${GPUCOPY_DIR}/cuda/cell_run.cpp)
# spiral-gpucopy-bench: the bench per GPU; spiral-memcpy-loop: the plain cudaMemcpy loop it is
# compared with (docs/benchmarks/gpucopy.md)
add_executable(spiral-gpucopy-bench bench/gpucopy/gpucopy_bench.cpp)
target_link_libraries(spiral-gpucopy-bench PRIVATE spiral_core)
add_executable(spiral-memcpy-loop bench/gpucopy/memcpy_loop.cpp)
target_link_libraries(spiral-memcpy-loop PRIVATE CUDA::cudart)
