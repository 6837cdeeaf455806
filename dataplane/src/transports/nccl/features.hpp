#pragma once
// What an option needs of the NCCL library the image loaded, checked before any rank meets
// another (preflight): a cell asking for what its NCCL lacks fails at once with the reason, rather
// than at the first call NCCL does not have.
#include <string>

#include "transports/nccl/sweep_spec.hpp"

namespace spiral::nccl {

// NCCL_VERSION(X, Y, Z) as nccl.h computes it from 2.9 on.
constexpr int nccl_version_code(int major, int minor, int patch) { return major * 10000 + minor * 100 + patch; }
std::string version_text(int code);  // 22809 -> "2.28.9"

// ncclCommWindowRegister (registration symmetric) appeared in NCCL 2.27.0.
constexpr int kSymmetricRegistrationSince = nccl_version_code(2, 27, 0);

// Why NCCL `version_code` cannot run `spec` ("" when it can); `has_window_register` says whether
// the loaded library exports ncclCommWindowRegister (a header newer than the library can say yes
// to the version and no to the symbol).
std::string missing_feature(const SweepSpec& spec, int version_code, bool has_window_register);

}  // namespace spiral::nccl
