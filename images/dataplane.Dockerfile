# syntax=docker/dockerfile:1
# The SpiralBench data plane image for users: spiral-dataplane built against DPDK, rdma-core
# (ibverbs, rdmacm) and CUDA, on the CUDA runtime image (cudart, cuBLAS, cuFFT) with the DPDK
# and rdma-core runtime libraries and verbs providers. Build and push from the repository root
# (needs Docker/BuildKit, not available on the development machines, where
# hack/build-images.sh builds a Debian-based image with the same binary path and entrypoint):
#
#   docker build -f images/dataplane.Dockerfile -t ghcr.io/spiralbench/dataplane:v0.1.0 .
#   docker push ghcr.io/spiralbench/dataplane:v0.1.0
#
# Pods need the NVIDIA container runtime (or CDI) for the GPU, and the RDMA/SR-IOV device
# plugins for the NIC; the operator requests those resources by name.
ARG CUDA_VERSION=13.0.1
ARG BASE_OS=ubuntu24.04

FROM nvcr.io/nvidia/cuda:${CUDA_VERSION}-devel-${BASE_OS} AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config \
      dpdk-dev libibverbs-dev librdmacm-dev \
      nlohmann-json3-dev libcli11-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY dataplane/ dataplane/
RUN cmake -S dataplane -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    && cmake --build build --target spiral-dataplane \
    && install -D -m 0755 build/spiral-dataplane /out/spiral-dataplane

FROM nvcr.io/nvidia/cuda:${CUDA_VERSION}-runtime-${BASE_OS}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      dpdk rdma-core ibverbs-providers libibverbs1 librdmacm1 \
      iproute2 ethtool procps \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/spiral-dataplane /usr/local/bin/spiral-dataplane
ENTRYPOINT ["/usr/local/bin/spiral-dataplane"]
