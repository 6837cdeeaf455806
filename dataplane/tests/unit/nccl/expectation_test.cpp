// The check's expectations against a CPU model of each operation: every rank's send buffer from
// input_value, then the operation as NCCL documents it (who receives which slice of whom).
#include "transports/nccl/expectation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

#include "transports/nccl/collective.hpp"
#include "transports/nccl/element_types.hpp"

namespace spiral::nccl {
namespace {

using Buffers = std::vector<std::vector<double>>;

double combine(ReduceOp op, const std::vector<double>& values, bool integer) {
  switch (op) {
    case ReduceOp::sum: return std::accumulate(values.begin(), values.end(), 0.0);
    case ReduceOp::prod: return std::accumulate(values.begin(), values.end(), 1.0, std::multiplies<>());
    case ReduceOp::max: return *std::max_element(values.begin(), values.end());
    case ReduceOp::min: return *std::min_element(values.begin(), values.end());
    case ReduceOp::avg: {
      const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
      return integer ? static_cast<double>(static_cast<int64_t>(mean)) : mean;
    }
  }
  return 0;
}

// Receive buffers of every rank after the operation; an empty buffer is one NCCL leaves undefined.
Buffers model(Collective c, ReduceOp op, int n, int root, uint64_t param, uint32_t seed, bool integer) {
  const Counts counts = info(c).counts(param * static_cast<uint64_t>(c == Collective::all_gather ||
                                                                    c == Collective::reduce_scatter ||
                                                                    c == Collective::all_to_all ? n : 1),
                                       4, n);
  Buffers send(n, std::vector<double>(counts.send)), recv(n, std::vector<double>(counts.recv));
  for (int r = 0; r < n; ++r)
    for (uint64_t k = 0; k < counts.send; ++k) send[r][k] = input_value(op, r, k, seed);
  auto reduced_at = [&](uint64_t k) {
    std::vector<double> values;
    for (int r = 0; r < n; ++r) values.push_back(send[r][k]);
    return combine(op, values, integer);
  };
  for (int r = 0; r < n; ++r) {
    for (uint64_t i = 0; i < counts.recv; ++i) {
      const uint64_t from = i / param, at = i % param;
      switch (c) {
        case Collective::send_recv: recv[r][i] = send[(r + n - 1) % n][i]; break;
        case Collective::all_gather: recv[r][i] = send[from][at]; break;
        case Collective::all_reduce: recv[r][i] = reduced_at(i); break;
        case Collective::broadcast: recv[r][i] = send[root][i]; break;
        case Collective::reduce: recv[r][i] = reduced_at(i); break;
        case Collective::reduce_scatter: recv[r][i] = reduced_at(r * param + i); break;
        case Collective::all_to_all: recv[r][i] = send[from][r * param + at]; break;
        case Collective::all_to_all_v: break;  // checked per segment: alltoallv_test.cpp
      }
    }
    if (c == Collective::reduce && r != root) recv[r].clear();
  }
  return recv;
}

TEST(Expectation, AgreesWithAModelOfEveryOperation) {
  for (const auto& coll : collectives()) {
    if (coll.id == Collective::all_to_all_v) continue;  // its own model: alltoallv_test.cpp
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg}) {
      if (!coll.reduces && op != ReduceOp::sum) continue;
      for (int n : {1, 2, 3, 5}) {
        for (bool integer : {false, true}) {
          const int root = n - 1;
          const uint64_t param = 16;
          const uint32_t seed = 7;
          const Buffers want = model(coll.id, op, n, root, param, seed, integer);
          for (int r = 0; r < n; ++r) {
            const CheckShape shape{coll.id, op, n, r, root, param, seed};
            for (uint64_t i = 0; i < std::max<size_t>(want[r].size(), 1); ++i) {
              const Expected e = expected_value(shape, i, integer);
              if (want[r].empty()) {
                EXPECT_FALSE(e.checked) << coll.name << " rank " << r;
                continue;
              }
              ASSERT_TRUE(e.checked) << coll.name << " rank " << r << " index " << i;
              EXPECT_DOUBLE_EQ(e.value, want[r][i])
                  << coll.name << " op " << name(op) << " n " << n << " rank " << r << " index " << i;
            }
          }
        }
      }
    }
  }
}

// Sums of up to 36 ranks stay at or below 256, products at or below 2^18, all integers, so every
// type (bfloat16 has 8 significant bits) holds them exactly except where it wraps.
TEST(Expectation, ValuesStaySmallIntegers) {
  for (uint64_t i = 0; i < 4096; ++i) {
    const double sum = reduced_value(ReduceOp::sum, 36, i, 3, false);
    EXPECT_LE(sum, 256.0);
    EXPECT_EQ(sum, static_cast<double>(static_cast<int64_t>(sum)));
    EXPECT_LE(reduced_value(ReduceOp::prod, 36, i, 3, false), 262144.0);
    EXPECT_GE(input_value(ReduceOp::prod, 0, i, 3), 1.0);
  }
}

// Share of 1024 elements at which two views of the data differ.
template <typename F>
double differing(F&& differs) {
  int n = 0;
  for (uint64_t i = 0; i < 1024; ++i) n += differs(i);
  return n / 1024.0;
}

// Data from the wrong place is caught at any rank count: another rank's (ranks 8 apart too),
// another seed's, and another slice of the right rank's at counts that are multiples of 8.
TEST(Expectation, DataFromTheWrongPlaceDiffersAtAnyRankCount) {
  const auto in = [](int rank, uint64_t i, uint32_t seed) { return input_value(ReduceOp::sum, rank, i, seed); };
  for (int other : {1, 2, 8, 16, 35})
    EXPECT_GT(differing([&](uint64_t i) { return in(0, i, 7) != in(other, i, 7); }), 0.8) << "rank 0 vs " << other;
  EXPECT_GT(differing([&](uint64_t i) { return in(0, i, 7) != in(0, i, 8); }), 0.8) << "seeds";
  for (uint64_t param : {4u, 8u, 16u, 131072u}) {
    // reduce_scatter at 2 ranks: rank 0's slice against rank 1's
    const CheckShape rs0{Collective::reduce_scatter, ReduceOp::sum, 2, 0, 0, param, 7};
    const CheckShape rs1{Collective::reduce_scatter, ReduceOp::sum, 2, 1, 0, param, 7};
    EXPECT_GT(differing([&](uint64_t i) {
                return expected_value(rs0, i % param, false).value != expected_value(rs1, i % param, false).value;
              }),
              0.5)
        << "reduce_scatter slices, count " << param;
    // alltoall at 2 ranks: the block rank 1 sent rank 0 against the one it sent itself
    const CheckShape a0{Collective::all_to_all, ReduceOp::sum, 2, 0, 0, param, 7};
    const CheckShape a1{Collective::all_to_all, ReduceOp::sum, 2, 1, 0, param, 7};
    EXPECT_GT(differing([&](uint64_t i) {
                const uint64_t at = param + i % param;  // slot of rank 1
                return expected_value(a0, at, false).value != expected_value(a1, at, false).value;
              }),
              0.8)
        << "alltoall blocks, count " << param;
    // reduce_scatter prod too: products vary with the index, not just with the rank count
    const CheckShape p0{Collective::reduce_scatter, ReduceOp::prod, 2, 0, 0, param, 7};
    const CheckShape p1{Collective::reduce_scatter, ReduceOp::prod, 2, 1, 0, param, 7};
    EXPECT_GT(differing([&](uint64_t i) {
                return expected_value(p0, i % param, false).value != expected_value(p1, i % param, false).value;
              }),
              0.3)
        << "reduce_scatter prod slices, count " << param;
  }
}

TEST(Expectation, ToleranceOnlyWhereRoundingHappens) {
  EXPECT_EQ(tolerance(ElementType::float32, ReduceOp::sum), 0.0);
  EXPECT_EQ(tolerance(ElementType::int32, ReduceOp::avg), 0.0);
  EXPECT_GT(tolerance(ElementType::bfloat16, ReduceOp::avg), 0.0);
}

}  // namespace
}  // namespace spiral::nccl
