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
      }
    }
    if (c == Collective::reduce && r != root) recv[r].clear();
  }
  return recv;
}

TEST(Expectation, AgreesWithAModelOfEveryOperation) {
  for (const auto& coll : collectives()) {
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
  for (uint64_t i = 0; i < 64; ++i) {
    const double sum = reduced_value(ReduceOp::sum, 36, i, 3, false);
    EXPECT_LE(sum, 256.0);
    EXPECT_EQ(sum, static_cast<double>(static_cast<int64_t>(sum)));
    EXPECT_GE(input_value(ReduceOp::prod, 0, i, 3), 1.0);
  }
}

TEST(Expectation, DataDiffersBetweenRanksAndSeeds) {
  int differ_rank = 0, differ_seed = 0;
  for (uint64_t i = 0; i < 64; ++i) {
    differ_rank += input_value(ReduceOp::sum, 0, i, 0) != input_value(ReduceOp::sum, 1, i, 0);
    differ_seed += input_value(ReduceOp::sum, 0, i, 0) != input_value(ReduceOp::sum, 0, i, 1);
  }
  EXPECT_EQ(differ_rank, 64);  // a rank's data is never another's: a swapped slice is caught
  EXPECT_EQ(differ_seed, 64);
}

TEST(Expectation, ToleranceOnlyWhereRoundingHappens) {
  EXPECT_EQ(tolerance(ElementType::float32, ReduceOp::sum), 0.0);
  EXPECT_EQ(tolerance(ElementType::int32, ReduceOp::avg), 0.0);
  EXPECT_GT(tolerance(ElementType::bfloat16, ReduceOp::avg), 0.0);
}

}  // namespace
}  // namespace spiral::nccl
