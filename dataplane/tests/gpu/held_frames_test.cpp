// HeldFrames with WindowFlight, as the in-place datagram assembler and the pipeline use them:
// a receive buffer (raw Ethernet's mbuf) goes back to its pool only after the GPU work of the
// window that reads it completed. The GPU is replaced by FakeCompletion, a fake completion
// source (a test double: the test says when a slot's work is done).
#include "gpu/held_frames.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gpu/window_flight.hpp"

namespace spiral::gpu {
namespace {

class FakeCompletion final : public CompletionSource {
 public:
  bool done(size_t slot) override { return completed.count(slot) > 0; }
  void wait(size_t slot) override { completed.insert(slot); }
  std::set<size_t> completed;
};

// Frames are integers cast to pointers; `released` records them in release order.
void* frame(uintptr_t n) { return reinterpret_cast<void*>(n); }

struct Rig {
  explicit Rig(uint32_t max_in_flight)
      : held([this](std::span<void* const> f) {
          for (void* p : f) released.push_back(reinterpret_cast<uintptr_t>(p));
        }),
        flight(max_in_flight, 1, completion, [this](size_t slot) { held.release(token_of[slot]); }),
        token_of(flight.slots()) {}
  // One window of `frames` goes to the "GPU" (what Pipeline::submit does with its token).
  size_t submit(std::initializer_list<uintptr_t> frames) {
    for (uintptr_t f : frames) held.hold(frame(f));
    const uint64_t token = held.seal();
    flight.before_launch();
    const size_t slot = flight.filling();
    token_of[slot] = token;
    completion.completed.erase(slot);  // a reused slot's new work has not completed
    flight.launched();
    return slot;
  }
  std::vector<uintptr_t> released;
  HeldFrames held;
  FakeCompletion completion;
  WindowFlight flight;
  std::vector<uint64_t> token_of;
};

TEST(HeldFrames, AFrameIsReleasedOnlyAfterTheKernelReadingItsWindowCompleted) {
  Rig r(2);
  const size_t w0 = r.submit({1, 2, 3});
  const size_t w1 = r.submit({4, 5});
  r.flight.reap();
  EXPECT_TRUE(r.released.empty()) << "nothing completed, nothing may go back to the pool";
  r.completion.completed.insert(w1);  // the later window's event alone: still nothing (in order)
  r.flight.reap();
  EXPECT_TRUE(r.released.empty());
  r.completion.completed.insert(w0);
  r.flight.reap();
  EXPECT_EQ(r.released, (std::vector<uintptr_t>{1, 2, 3, 4, 5}));
}

TEST(HeldFrames, AStallReleasesTheOldestWindowsFramesBeforeTheNextWindowLaunches) {
  Rig r(1);
  r.submit({10, 11});
  EXPECT_TRUE(r.released.empty());
  r.submit({12});  // max_in_flight 1: waits for the first window, then its frames go back
  EXPECT_EQ(r.released, (std::vector<uintptr_t>{10, 11}));
  EXPECT_EQ(r.flight.stalls(), 1u);
}

TEST(HeldFrames, FramesOfTheWindowBeingFilledStayHeldUntilItIsSealedAndDone) {
  Rig r(2);
  r.submit({1});
  r.held.hold(frame(2));  // the next window, still filling
  r.completion.completed.insert(0);
  r.flight.drain();
  EXPECT_EQ(r.released, (std::vector<uintptr_t>{1}));
  EXPECT_EQ(r.held.filling(), 1u);
  r.held.release_all();  // end of run: everything goes back, exactly once
  EXPECT_EQ(r.released, (std::vector<uintptr_t>{1, 2}));
  r.held.release_all();
  EXPECT_EQ(r.released.size(), 2u);
  EXPECT_EQ(r.held.released(), 2u);
}

TEST(HeldFrames, EveryFrameComesBackExactlyOnceOverManyWindows) {
  Rig r(3);
  uintptr_t next = 1;
  for (int w = 0; w < 50; ++w) {
    r.submit({next, next + 1, next + 2});
    next += 3;
  }
  r.flight.drain();
  r.held.release_all();
  ASSERT_EQ(r.released.size(), 150u);
  for (uintptr_t i = 0; i < 150; ++i) EXPECT_EQ(r.released[i], i + 1) << "released out of order";
}

}  // namespace
}  // namespace spiral::gpu
