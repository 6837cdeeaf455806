#pragma once
// Data types and reduction operators of a cell, spelled as nccl-tests' -d and -o options spell
// them.
#include <cstddef>
#include <span>
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
// Every data type and reduction, in nccl.h's order (the kind's vocabulary).
std::span<const ElementTypeInfo> element_types();
std::span<const std::string_view> reduce_op_names();

}  // namespace spiral::nccl
