#pragma once
// A GPU's local tests (local_spec.hpp says what each is): SM read-only and write-only passes
// timed with CUDA events around `iterations` kernels after `warmup` untimed ones, and pointer
// chases of kChaseLoads loads timed the same way, each `repeats` times. Buffers come from the
// memory provider, as the copies' do.
#include <vector>

#include "transports/gpucopy/copy_spec.hpp"
#include "transports/gpucopy/local_spec.hpp"

namespace spiral::gpucopy {

struct LocalResult {
  std::vector<LocalFigure> figures;
  std::string note;  // what was not measured and why ("one GPU: no peer latency"), else ""
};

// Every test of spec.local on each of `devices` (CUDA indices), in that order: per GPU the SM
// tests, then the latencies (peer: every other GPU of `devices` it can access).
LocalResult measure_local(const CopySpec& spec, const std::vector<int>& devices);

// The pieces the GPU check (tests/gpucopy/local_check.cpp) verifies: lay_chase writes the chain
// (a kChaseBytes buffer at `where`, device memory when on_device, else host memory the GPU sees
// at device_address); chase_ns is one chase's ns per load over it from `device`; read_fold the
// XOR fold of what an SM read pass of `bytes` at src loaded; write_pass one SM write pass.
void lay_chase(void* where, void* device_address, bool on_device);
double chase_ns(int device, void* device_address, uint64_t loads);
unsigned long long read_fold(int device, const void* src, uint64_t bytes);
void write_pass(int device, void* dst, uint64_t bytes, uint32_t value);

}  // namespace spiral::gpucopy
