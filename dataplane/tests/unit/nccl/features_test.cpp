#include "transports/nccl/features.hpp"

#include <gtest/gtest.h>

namespace spiral::nccl {
namespace {

SweepSpec with(Registration r) {
  SweepSpec s;
  s.registration = r;
  return s;
}

TEST(Features, SymmetricRegistrationNeedsNccl227) {
  const std::string why = missing_feature(with(Registration::symmetric), nccl_version_code(2, 26, 6), true);
  EXPECT_EQ(why, "registration symmetric needs NCCL 2.27.0 or later (ncclCommWindowRegister); the image's NCCL is "
                 "2.26.6: use registration local or none, or an image with a newer NCCL");
  EXPECT_EQ(missing_feature(with(Registration::symmetric), nccl_version_code(2, 27, 0), true), "");
  EXPECT_EQ(missing_feature(with(Registration::symmetric), nccl_version_code(2, 28, 9), true), "");
}

TEST(Features, ALibraryWithoutTheSymbolIsRefusedToo) {
  EXPECT_NE(missing_feature(with(Registration::symmetric), nccl_version_code(2, 28, 9), false)
                .find("does not export ncclCommWindowRegister"),
            std::string::npos);
}

TEST(Features, OtherOptionsRunOnAnyNccl) {
  SweepSpec s = with(Registration::local);
  s.blocking = Blocking::wait_untimed_barrier;
  s.unalign = 3;
  s.timeout_s = 30;
  EXPECT_EQ(missing_feature(s, nccl_version_code(2, 18, 1), false), "");
  EXPECT_EQ(version_text(nccl_version_code(2, 28, 9)), "2.28.9");
}

}  // namespace
}  // namespace spiral::nccl
