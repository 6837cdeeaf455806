#include "transports/nccl/features.hpp"

namespace spiral::nccl {

std::string version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

std::string missing_feature(const SweepSpec& spec, int version_code, bool has_window_register) {
  if (spec.registration != Registration::symmetric) return "";
  if (version_code < kSymmetricRegistrationSince)
    return "registration symmetric needs NCCL " + version_text(kSymmetricRegistrationSince) +
           " or later (ncclCommWindowRegister); the image's NCCL is " + version_text(version_code) +
           ": use registration local or none, or an image with a newer NCCL";
  if (!has_window_register)
    return "registration symmetric: the loaded NCCL " + version_text(version_code) +
           " does not export ncclCommWindowRegister: use registration local or none";
  return "";
}

}  // namespace spiral::nccl
