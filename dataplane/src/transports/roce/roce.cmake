# Transport roce (ibverbs RC queue pairs), included by dataplane/CMakeLists.txt once spiral_core
# exists. SPIRAL_WITH_RDMA: AUTO (default) builds it when rdma-core's libibverbs is found, ON
# requires it, OFF leaves it out; without it, --transport roce is refused (exit 2).
set(SPIRAL_WITH_RDMA AUTO CACHE STRING "Build the roce transport on rdma-core's libibverbs: AUTO, ON or OFF")
set_property(CACHE SPIRAL_WITH_RDMA PROPERTY STRINGS AUTO ON OFF)
set(ROCE_DIR src/transports/roce)

# The parts without verbs types (accounting, sizing, the peer description, latency histogram,
# device counters) build everywhere, so their unit tests run everywhere.
target_sources(spiral_core PRIVATE
  ${ROCE_DIR}/rdma_parse.cpp
  ${ROCE_DIR}/roce_kind.cpp
  ${ROCE_DIR}/rdma_accounting.cpp
  ${ROCE_DIR}/sizing.cpp
  ${ROCE_DIR}/retry_counters.cpp
  ${ROCE_DIR}/peer_info.cpp
)

set(SPIRAL_HAVE_RDMA 0)
if(NOT SPIRAL_WITH_RDMA STREQUAL "OFF")
  find_package(PkgConfig)
  if(PkgConfig_FOUND)
    pkg_check_modules(IBVERBS IMPORTED_TARGET libibverbs)  # Debian: libibverbs-dev (rdma-core)
  endif()
  if(IBVERBS_FOUND)
    set(SPIRAL_HAVE_RDMA 1)
  elseif(SPIRAL_WITH_RDMA STREQUAL "ON")
    message(FATAL_ERROR "SPIRAL_WITH_RDMA=ON but libibverbs was not found (Debian: libibverbs-dev)")
  endif()
endif()
if(SPIRAL_HAVE_RDMA)
  message(STATUS "roce transport: on (libibverbs ${IBVERBS_VERSION})")
  target_sources(spiral_core PRIVATE
    ${ROCE_DIR}/device.cpp
    ${ROCE_DIR}/buffer.cpp
    ${ROCE_DIR}/queue_pair.cpp
    ${ROCE_DIR}/roce_engine.cpp
    ${ROCE_DIR}/roce_stream.cpp
    ${ROCE_DIR}/roce_ping_pong.cpp
    ${ROCE_DIR}/roce_sink.cpp
    ${ROCE_DIR}/roce_echo.cpp
  )
  target_link_libraries(spiral_core PUBLIC PkgConfig::IBVERBS)
else()
  message(STATUS "roce transport: off (SPIRAL_WITH_RDMA=${SPIRAL_WITH_RDMA}; libibverbs-dev needed)")
  target_sources(spiral_core PRIVATE ${ROCE_DIR}/roce_factory_unavailable.cpp)
endif()
target_compile_definitions(spiral_core PUBLIC SPIRAL_HAVE_RDMA=${SPIRAL_HAVE_RDMA})
