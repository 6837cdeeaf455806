#include "gpu/datagram_windower.hpp"

#include <gtest/gtest.h>

namespace spiral::gpu {
namespace {

using Place = DatagramWindower::Place;

TEST(DatagramWindower, InOrderFillsAWindowAndCompletesAtItsLastSlot) {
  DatagramWindower w(4);
  EXPECT_EQ(w.room(), 4u);
  EXPECT_EQ(w.place(0), Place::current);
  EXPECT_EQ(w.room(), 3u);
  EXPECT_EQ(w.place(1), Place::current);
  EXPECT_EQ(w.place(2), Place::current);
  EXPECT_FALSE(w.complete());
  EXPECT_EQ(w.place(3), Place::current);
  EXPECT_TRUE(w.complete());
  EXPECT_EQ(w.room(), 1u);  // never 0: a receiver always asks for at least one
  w.advance();
  EXPECT_EQ(w.base(), 4u);
  EXPECT_FALSE(w.complete());
  EXPECT_EQ(w.room(), 4u);
}

TEST(DatagramWindower, ADatagramOfALaterWindowCompletesTheCurrentOne) {
  DatagramWindower w(4);
  EXPECT_EQ(w.place(1), Place::current);
  EXPECT_EQ(w.place(6), Place::beyond);  // 0, 2, 3 never came (lost): their slots stay zero
  EXPECT_TRUE(w.complete());
  w.advance_to(6);
  EXPECT_EQ(w.base(), 4u);
  EXPECT_EQ(w.place(6), Place::current);
  EXPECT_EQ(w.place(3), Place::late);  // its window went to the GPU already
  EXPECT_EQ(w.place(5), Place::current);
}

TEST(DatagramWindower, JumpsOverWindowsNothingArrivedIn) {
  DatagramWindower w(100);
  EXPECT_EQ(w.place(12345), Place::beyond);
  w.advance_to(12345);
  EXPECT_EQ(w.base(), 12300u);  // windows stay aligned to multiples of the slot count
  EXPECT_EQ(w.place(12345), Place::current);
  EXPECT_EQ(w.room(), 54u);
}

TEST(DatagramWindower, ReorderedInsideTheWindowIsNotLate) {
  DatagramWindower w(8);
  for (uint64_t s : {3, 1, 0, 7, 2}) EXPECT_EQ(w.place(s), Place::current) << s;
  EXPECT_TRUE(w.complete());  // its last slot arrived; 4, 5, 6 arriving later are late
}

TEST(DatagramWindower, OneSlotWindows) {
  DatagramWindower w(1);
  EXPECT_EQ(w.place(0), Place::current);
  EXPECT_TRUE(w.complete());
  w.advance();
  EXPECT_EQ(w.place(1), Place::current);
  EXPECT_EQ(DatagramWindower(0).slots(), 1u);
}

}  // namespace
}  // namespace spiral::gpu
