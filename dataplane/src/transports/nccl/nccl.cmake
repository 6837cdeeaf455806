# Transport nccl: NCCL collectives measured as nccl-tests measures them (docs/benchmarks/nccl.md),
# included by dataplane/CMakeLists.txt after src/gpu/gpu.cmake (it needs SPIRAL_HAVE_CUDA).
#
#   SPIRAL_WITH_NCCL=AUTO  the NCCL engine when CUDA is on and nccl.h + libnccl are found
#                    ON    the same or a configure error;   OFF  never
#   NCCL_ROOT              where include/nccl.h and lib/libnccl.so are: hack/nccl.sh fetches the
#                          nvidia-nccl-cu13 wheel and prints the arguments; on a GPU machine, the
#                          nvidia/nccl folder of its PyTorch environment
set(SPIRAL_WITH_NCCL AUTO CACHE STRING "Build the NCCL engine: AUTO, ON or OFF")
set_property(CACHE SPIRAL_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)
set(NCCL_ROOT "" CACHE PATH "Folder holding include/nccl.h and lib/libnccl.so")
set(NCCL_DIR src/transports/nccl)

# The parts without NCCL or CUDA build everywhere, so their unit tests run in every CI build:
# the operation table, types, the check's expectations, the bootstrap, NCCL's log.
target_sources(spiral_core PRIVATE
  src/config/size_sweep.cpp
  ${NCCL_DIR}/collective.cpp
  ${NCCL_DIR}/element_types.cpp
  ${NCCL_DIR}/bootstrap.cpp
  ${NCCL_DIR}/transport_log.cpp
  ${NCCL_DIR}/gpu_links.cpp
  ${NCCL_DIR}/sweep_rows.cpp
  ${NCCL_DIR}/network_env.cpp
  ${NCCL_DIR}/summary_part.cpp
  ${NCCL_DIR}/nccl_tests_json.cpp
  ${NCCL_DIR}/nccl_options.cpp
  ${NCCL_DIR}/features.cpp
  ${NCCL_DIR}/alltoallv.cpp
  ${NCCL_DIR}/split.cpp
  ${NCCL_DIR}/nccl_kind.cpp
)

set(SPIRAL_HAVE_NCCL OFF)
if(SPIRAL_HAVE_CUDA AND NOT SPIRAL_WITH_NCCL STREQUAL "OFF")
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT}/include ENV NCCL_HOME PATH_SUFFIXES include NO_CACHE)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${NCCL_ROOT}/lib ENV NCCL_HOME PATH_SUFFIXES lib NO_CACHE)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(SPIRAL_HAVE_NCCL ON)
  endif()
endif()
if(SPIRAL_WITH_NCCL STREQUAL "ON" AND NOT SPIRAL_HAVE_NCCL)
  message(FATAL_ERROR "SPIRAL_WITH_NCCL=ON needs the CUDA build (SPIRAL_WITH_CUDA) and NCCL: pass "
                      "-DNCCL_ROOT=<folder with include/nccl.h and lib/libnccl.so> (hack/nccl.sh prints it)")
endif()
if(NOT SPIRAL_HAVE_NCCL)
  message(STATUS "spiral: NCCL engine off (SPIRAL_WITH_NCCL=${SPIRAL_WITH_NCCL}, CUDA ${SPIRAL_HAVE_CUDA})")
  target_sources(spiral_core PRIVATE ${NCCL_DIR}/cell_rank_unavailable.cpp)  # the kind refuses to run
  return()
endif()
file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_version REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
string(REGEX REPLACE "[^0-9;]" "" _nccl_version "${_nccl_version}")
list(JOIN _nccl_version "." _nccl_version)
message(STATUS "spiral: NCCL engine on: NCCL ${_nccl_version} (${NCCL_LIBRARY})")
get_filename_component(_nccl_libdir ${NCCL_LIBRARY} DIRECTORY)
list(APPEND CMAKE_BUILD_RPATH "${_nccl_libdir}")

# The kernels (C++17 for nvcc) in their own library; the engine, which also uses the pure parts,
# joins spiral_core.
add_library(spiral_nccl STATIC ${NCCL_DIR}/cuda/buffers_check.cu)
target_include_directories(spiral_nccl PUBLIC src generated ${NCCL_INCLUDE_DIR})
target_link_libraries(spiral_nccl PUBLIC ${NCCL_LIBRARY} CUDA::cudart nlohmann_json::nlohmann_json)
target_compile_options(spiral_nccl PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic $<$<BOOL:${SPIRAL_WERROR}>:-Werror>>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra $<$<BOOL:${SPIRAL_WERROR}>:-Werror=all-warnings>>)
set_target_properties(spiral_nccl PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
target_sources(spiral_core PRIVATE ${NCCL_DIR}/cuda/nccl_engine.cpp ${NCCL_DIR}/cuda/nccl_rank.cpp
                                   ${NCCL_DIR}/cuda/cell_rank.cpp)
target_link_libraries(spiral_core PUBLIC spiral_nccl)
target_compile_definitions(spiral_core PUBLIC SPIRAL_HAVE_NCCL=1)

# The device-side tool: one rank of a sweep, printed as nccl-tests prints it (hack/bench/nccl-vs-nccl-tests.sh).
add_executable(spiral-nccl-bench bench/nccl/nccl_bench.cpp)
target_link_libraries(spiral-nccl-bench PRIVATE spiral_core)
