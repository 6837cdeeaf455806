#pragma once
// Whether this build has the roce transport (rdma-core's libibverbs found at configure time;
// CMake option SPIRAL_WITH_RDMA, see transports/roce/roce.cmake).
#ifndef SPIRAL_HAVE_RDMA
#define SPIRAL_HAVE_RDMA 0
#endif
