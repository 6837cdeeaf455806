# syntax=docker/dockerfile:1
# The SpiralBench data plane image for users: spiral-dataplane built against DPDK, rdma-core
# (ibverbs, rdmacm), CUDA and NCCL, on the CUDA runtime image (cudart, cuBLAS, cuFFT) with the
# DPDK and rdma-core runtime libraries, verbs providers and NCCL 2.28.9 from the nvidia-nccl-cu13
# wheel (hack/nccl.sh, the same library CI builds against). Build and push from the repository root
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
      nlohmann-json3-dev libcli11-dev zlib1g-dev python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY dataplane/ dataplane/
COPY hack/nccl.sh hack/nccl.sh
RUN SPIRAL_CACHE=/opt hack/nccl.sh >/tmp/nccl-args \
    && cmake -S dataplane -B build -G Ninja -DCMAKE_BUILD_TYPE=Release $(cat /tmp/nccl-args) \
    && cmake --build build --target spiral-dataplane spiral-nccl-bench spiral-gpucopy-bench \
    && install -D -m 0755 build/spiral-dataplane /out/spiral-dataplane \
    && install -D -m 0755 build/spiral-nccl-bench /out/spiral-nccl-bench \
    && install -D -m 0755 build/spiral-gpucopy-bench /out/spiral-gpucopy-bench \
    && install -D -m 0644 /opt/nccl-2.28.9/lib/libnccl.so.2 /out/lib/libnccl.so.2

FROM nvcr.io/nvidia/cuda:${CUDA_VERSION}-runtime-${BASE_OS}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      dpdk rdma-core ibverbs-providers libibverbs1 librdmacm1 \
      iproute2 ethtool procps \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/spiral-dataplane /out/spiral-nccl-bench /out/spiral-gpucopy-bench /usr/local/bin/
COPY --from=build /out/lib/libnccl.so.2 /usr/local/lib/libnccl.so.2
RUN ldconfig
ENTRYPOINT ["/usr/local/bin/spiral-dataplane"]
