#pragma once
// nccl-tests' NCCL_TESTS_SPLIT: the cell's ranks split into groups, each running the operation on
// a communicator of its own (ncclCommSplit), all at once. A rank's colour is its rank combined
// with a value: "AND 0x7" (also "&"), "OR", "|", "MOD", "%", "DIV", "/"; the value decimal, 0x
// hexadecimal or 0b binary. With G GPUs a node: "MOD G" groups one GPU of every node (one rail,
// inter-node only), "DIV G" the GPUs of each node (intra-node only).
#include <string>
#include <vector>

namespace spiral::nccl {

struct SplitRule {
  enum class Op { none, bit_and, bit_or, mod, div } op = Op::none;
  long value = 0;
  bool active() const { return op != Op::none; }
};

// Throws BadInput naming the accepted forms; "" is no split.
SplitRule parse_split(const std::string& text);
std::string to_string(const SplitRule& r);  // "MOD 8"; "" for none

int split_colour(const SplitRule& r, int rank);

// Every rank's group: its colour, its rank within the group (by cell rank, as ncclCommSplit's
// key) and the group's size.
struct SplitPlace {
  int colour = 0, rank = 0, nranks = 1;
};
std::vector<SplitPlace> split_places(const SplitRule& r, int nranks);

// Why the rule cannot split nranks ranks ("" when it can): groups of different sizes would time
// different operations under one row, so they are refused; a root must be a rank of every group.
std::string split_refusal(const SplitRule& r, int nranks, int root);

}  // namespace spiral::nccl
