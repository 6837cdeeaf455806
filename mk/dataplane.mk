# Data plane (C++): included by the root Makefile; also usable alone:
#   make -f mk/dataplane.mk dataplane | test-dataplane
DATAPLANE_BUILD ?= build/dataplane
DATAPLANE_JOBS  ?= 2
DATAPLANE_CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=Release

.PHONY: dataplane test-dataplane dataplane-deps

dataplane-deps:
	hack/deps-dataplane.sh

dataplane: dataplane-deps
	cmake -S dataplane -B $(DATAPLANE_BUILD) $(DATAPLANE_CMAKE_FLAGS)
	cmake --build $(DATAPLANE_BUILD) -j $(DATAPLANE_JOBS)

# ctest exits non-zero when any test fails; its "N% tests passed, M tests failed" line is the summary.
test-dataplane: dataplane
	ctest --test-dir $(DATAPLANE_BUILD) --output-on-failure --timeout 120
