#pragma once
// Data types and reduction operators of a cell, spelled as nccl-tests' -d and -o options spell
// them.
#include <cstddef>
#include <string>
#include <string_view>

#include "transports/nccl/identifiers.hpp"

namespace spiral::nccl {

struct ElementTypeInfo {
  ElementType id;
  std::string_view name;  // "float", "half", "bfloat16", ...
  size_t bytes;
  bool floating;
};

const ElementTypeInfo& info(ElementType t);
// Throws BadInput naming the accepted spellings.
ElementType element_type_named(std::string_view name);
std::string_view name(ReduceOp op);
ReduceOp reduce_op_named(std::string_view name);

}  // namespace spiral::nccl
