// WindowFlight, the pipeline's in-flight bookkeeping and output side, driven by a fake
// completion source (FakeCompletion: a test double standing in for the GPU's completion events,
// which a CPU build cannot have). The CUDA pipeline uses the same class with cudaEvent queries.
#include "gpu/window_flight.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gpu/window_sink.hpp"

namespace spiral::gpu {
namespace {

// Fake: a slot's work completes when the test says so; wait() completes it at once (as a GPU
// would, eventually) and records that it had to wait.
class FakeCompletion final : public CompletionSource {
 public:
  bool done(size_t slot) override { return completed.count(slot) > 0; }
  void wait(size_t slot) override {
    waited.push_back(slot);
    completed.insert(slot);
  }
  std::set<size_t> completed;
  std::vector<size_t> waited;
};

// The pipeline's use of the flight, minus CUDA: a window per launch, handed to a sink on retire.
struct FakePipeline {
  explicit FakePipeline(uint32_t max_in_flight, uint32_t sync_interval, WindowSink* sink)
      : flight(max_in_flight, sync_interval, completion, [this](size_t slot) { retire(slot); }), sink(sink),
        window_of(flight.slots()) {}
  size_t launch() {
    flight.before_launch();
    const size_t slot = flight.filling();
    EXPECT_FALSE(busy.count(slot)) << "slot " << slot << " refilled while its window was still in flight";
    busy.insert(slot);
    completion.completed.erase(slot);  // a reused slot's new work has not completed
    window_of[slot] = next++;
    flight.launched();
    return slot;
  }
  void retire(size_t slot) {
    EXPECT_TRUE(completion.done(slot)) << "slot " << slot << " retired before its work completed";
    busy.erase(slot);
    ProcessedWindow w;
    w.index = window_of[slot];
    if (sink) sink->window_processed(w);
  }
  FakeCompletion completion;
  WindowFlight flight;
  WindowSink* sink;
  std::vector<uint64_t> window_of;
  std::set<size_t> busy;
  uint64_t next = 0;
};

struct RecordingSink final : WindowSink {
  void window_processed(const ProcessedWindow& w) override { indices.push_back(w.index); }
  std::vector<uint64_t> indices;
};

TEST(WindowFlight, WindowsAreHandedOnInOrderAndOnlyOnceCompleted) {
  RecordingSink sink;
  FakePipeline p(2, 1, &sink);
  const size_t a = p.launch();  // window 0
  const size_t b = p.launch();  // window 1
  EXPECT_NE(a, b);
  EXPECT_TRUE(sink.indices.empty());
  p.completion.completed.insert(b);  // a later window done first: nothing may be handed on yet
  p.flight.reap();
  EXPECT_TRUE(sink.indices.empty());
  p.completion.completed.insert(a);
  p.flight.reap();
  EXPECT_EQ(sink.indices, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(p.flight.in_flight(), 0u);
  EXPECT_EQ(p.flight.stalls(), 0u);
}

TEST(WindowFlight, AtTheCapTheOldestIsAwaitedAndCountedAsAStall) {
  RecordingSink sink;
  FakePipeline p(2, 1000, &sink);
  const size_t first = p.launch();
  p.launch();
  EXPECT_EQ(p.flight.in_flight(), 2u);
  p.launch();  // a third window while two are in flight: waits for the first
  EXPECT_EQ(p.completion.waited, (std::vector<size_t>{first}));
  EXPECT_EQ(p.flight.stalls(), 1u);
  EXPECT_EQ(sink.indices, (std::vector<uint64_t>{0}));
  EXPECT_EQ(p.flight.in_flight(), 2u);
}

TEST(WindowFlight, ReapsEverySyncIntervalWithoutWaiting) {
  RecordingSink sink;
  FakePipeline p(4, 2, &sink);
  p.launch();                                 // launch 1: no reap
  p.completion.completed.insert(0);           // slot 0 (window 0) done
  p.launch();                                 // launch 2: reaps window 0
  EXPECT_EQ(sink.indices, (std::vector<uint64_t>{0}));
  EXPECT_TRUE(p.completion.waited.empty());
  EXPECT_EQ(p.flight.stalls(), 0u);
}

TEST(WindowFlight, DrainHandsOnEveryWindowAndFreesEverySlot) {
  RecordingSink sink;
  FakePipeline p(3, 1, &sink);
  for (int i = 0; i < 10; ++i) p.launch();
  p.flight.drain();
  ASSERT_EQ(sink.indices.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(sink.indices[i], i);
  EXPECT_EQ(p.flight.in_flight(), 0u);
  EXPECT_TRUE(p.busy.empty());
}

TEST(WindowFlight, WithoutASinkRetiringStillFreesSlots) {
  FakePipeline p(1, 1, nullptr);
  for (int i = 0; i < 5; ++i) p.launch();  // each launch past the first waits for the one before
  EXPECT_EQ(p.flight.stalls(), 4u);
  p.flight.drain();
  EXPECT_TRUE(p.busy.empty());
}

}  // namespace
}  // namespace spiral::gpu
