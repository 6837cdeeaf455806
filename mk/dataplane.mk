# Data plane (C++): included by the root Makefile; also usable alone:
#   make -f mk/dataplane.mk dataplane | test-dataplane
DATAPLANE_BUILD ?= build/dataplane
DATAPLANE_JOBS  ?= 2
DATAPLANE_CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=Release $(DATAPLANE_CCACHE_FLAGS)

# The compiler cache lives outside the clone, so a fresh clone on a warm machine compiles only
# what changed; BASEDIR makes its keys independent of where the clone is. DATAPLANE_CCACHE= off.
DATAPLANE_CCACHE ?= 1
ifeq ($(DATAPLANE_CCACHE),1)
export CCACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/spiralbench/ccache-4
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
export CCACHE_MAXSIZE ?= 8G
# evaluated when the recipe runs, after dataplane-deps installed ccache
DATAPLANE_CCACHE_FLAGS = $$(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
endif

.PHONY: dataplane test-dataplane dataplane-deps test-rdma

dataplane-deps:
	hack/deps-dataplane.sh

# DATAPLANE_TARGETS: build only these (the demo needs spiral-dataplane alone); empty: everything
DATAPLANE_TARGETS ?=
dataplane: dataplane-deps
	cmake -S dataplane -B $(DATAPLANE_BUILD) $(DATAPLANE_CMAKE_FLAGS)
	cmake --build $(DATAPLANE_BUILD) -j $(DATAPLANE_JOBS) $(if $(DATAPLANE_TARGETS),--target $(DATAPLANE_TARGETS))

# --- GPU workloads: the CUDA flavour, compiled on a machine without a GPU (CUDA from PyPI wheels,
# cached outside the clone by hack/cuda-toolkit.sh; NCCL from its wheel by hack/nccl.sh); its GPU
# tests skip (77) without a GPU.
DATAPLANE_CUDA_BUILD ?= build/dataplane-cuda
# every target with CUDA code or linking it; the CPU-only unit tests are the CPU flavour's job
DATAPLANE_CUDA_TARGETS ?= spiral-dataplane spiral-gpu-bench gpu_unit_tests gpu_correctness \
  spiral-nccl-bench spiral-gpucopy-bench spiral-memcpy-loop nccl_device_check raw_gpu_correctness \
  gpucopy_peer_check gpucopy_local_check nccl_options_device_check
.PHONY: dataplane-cuda
test-dataplane: dataplane-cuda
dataplane-cuda: dataplane-deps
	args="$$(hack/cuda-toolkit.sh) $$(hack/nccl.sh)" && cmake -S dataplane -B $(DATAPLANE_CUDA_BUILD) $(DATAPLANE_CMAKE_FLAGS) $$args
	cmake --build $(DATAPLANE_CUDA_BUILD) -j $(DATAPLANE_JOBS) --target $(DATAPLANE_CUDA_TARGETS)
	ctest --test-dir $(DATAPLANE_CUDA_BUILD) -L gpu --output-on-failure --timeout 120

# ctest exits non-zero when any test fails; its "N% tests passed, M tests failed" line is the summary.
# The real-RDMA tests skip under ctest on hosts without RDMA; test-rdma runs them in a VM.
test-dataplane: dataplane
	ctest --test-dir $(DATAPLANE_BUILD) --output-on-failure --timeout 120
	# the contracts: every list through the CPU build, those needing CUDA through the CUDA build
	SPIRAL_DATAPLANE=$(abspath $(DATAPLANE_BUILD))/spiral-dataplane \
	  SPIRAL_DATAPLANE_CUDA=$(abspath $(DATAPLANE_CUDA_BUILD))/spiral-dataplane go test -count=1 ./test/contract/
	$(MAKE) --no-print-directory test-rdma

# transport roce on real ibverbs: Debian's kernel under QEMU with two Soft-RoCE devices on a veth
# pair (hack/rxe-vm.sh; kernel and initramfs cached in ~/.cache/spiralbench). TEST_RDMA=0 skips it.
TEST_RDMA ?= 1
RDMA_TESTS ?= send_bw write_bw read_bw latency errors paced_bw
test-rdma: dataplane
ifeq ($(TEST_RDMA),1)
	hack/rxe-vm.sh run $(foreach t,$(RDMA_TESTS),"bash dataplane/tests/rdma/$(t).sh $(DATAPLANE_BUILD)/spiral-dataplane")
else
	@echo "test-rdma: skipped (TEST_RDMA=$(TEST_RDMA))"
endif
