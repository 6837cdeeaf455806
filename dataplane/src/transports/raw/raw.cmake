# Raw Ethernet transport. Included by dataplane/CMakeLists.txt after spiral_core.
# SPIRAL_WITH_DPDK: AUTO builds it when pkg-config finds libdpdk (Debian: libdpdk-dev 22.11),
# ON requires it, OFF leaves it out; without it `--transport raw` exits 2 saying so.
set(SPIRAL_WITH_DPDK AUTO CACHE STRING "Raw transport on DPDK: AUTO, ON or OFF")
set_property(CACHE SPIRAL_WITH_DPDK PROPERTY STRINGS AUTO ON OFF)

# The pure parts (frames, results, EAL plan, ports) build and are unit-tested either way.
target_sources(spiral_core PRIVATE
  src/transports/raw/raw_port.cpp
  src/transports/raw/raw_parse.cpp
  src/transports/raw/forward_parse.cpp
  src/transports/raw/forward_result.cpp
  src/transports/raw/raw_kind.cpp
  src/transports/raw/frame.cpp
  src/transports/raw/raw_result.cpp
  src/transports/raw/eal_plan.cpp
  src/transports/raw/netns.cpp
)

set(SPIRAL_HAVE_DPDK OFF)
if(NOT SPIRAL_WITH_DPDK STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(DPDK QUIET IMPORTED_TARGET libdpdk)
  endif()
  if(DPDK_FOUND)
    set(SPIRAL_HAVE_DPDK ON)
  elseif(SPIRAL_WITH_DPDK STREQUAL "ON")
    message(FATAL_ERROR "SPIRAL_WITH_DPDK=ON but pkg-config finds no libdpdk (apt-get install libdpdk-dev)")
  endif()
endif()

if(SPIRAL_HAVE_DPDK)
  message(STATUS "raw transport: DPDK ${DPDK_VERSION}")
  # DPDK's compile flags (-include rte_config.h, -march=corei7) stay on these files only.
  add_library(spiral_raw_dpdk OBJECT
    src/transports/raw/dpdk_env.cpp
    src/transports/raw/external_memory.cpp
    src/transports/raw/lane_threads.cpp
    src/transports/raw/raw_sender.cpp
    src/transports/raw/raw_receiver.cpp
    src/transports/raw/raw_session.cpp
    src/transports/raw/forwarder.cpp
    src/transports/raw/mbuf_pool.cpp
  )
  target_include_directories(spiral_raw_dpdk PRIVATE src generated)
  # rte_dev_dma_map and rte_pktmbuf_pool_create_extbuf are still "experimental" in DPDK 22.11
  set_source_files_properties(src/transports/raw/external_memory.cpp PROPERTIES COMPILE_DEFINITIONS ALLOW_EXPERIMENTAL_API)
  target_link_libraries(spiral_raw_dpdk PRIVATE PkgConfig::DPDK nlohmann_json::nlohmann_json)
  target_compile_options(spiral_raw_dpdk PRIVATE -Wall -Wextra $<$<BOOL:${SPIRAL_WERROR}>:-Werror>)
  target_sources(spiral_core PRIVATE $<TARGET_OBJECTS:spiral_raw_dpdk>)
  target_link_libraries(spiral_core PUBLIC $<LINK_ONLY:PkgConfig::DPDK>)
  target_compile_definitions(spiral_core PUBLIC SPIRAL_HAVE_DPDK=1)
  target_compile_definitions(spiral_raw_dpdk PRIVATE SPIRAL_HAVE_DPDK=1 SPIRAL_VERSION="${PROJECT_VERSION}")
else()
  message(STATUS "raw transport: without DPDK (SPIRAL_WITH_DPDK=${SPIRAL_WITH_DPDK}); --transport raw exits 2")
  target_sources(spiral_core PRIVATE src/transports/raw/raw_unavailable.cpp)
endif()
