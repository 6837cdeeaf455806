#include "transports/nccl/element_types.hpp"

#include <array>

#include "sys/errors.hpp"

namespace spiral::nccl {

namespace {
constexpr std::array kTypes{
    ElementTypeInfo{ElementType::int8, "int8", 1, false},       ElementTypeInfo{ElementType::uint8, "uint8", 1, false},
    ElementTypeInfo{ElementType::int32, "int32", 4, false},     ElementTypeInfo{ElementType::uint32, "uint32", 4, false},
    ElementTypeInfo{ElementType::int64, "int64", 8, false},     ElementTypeInfo{ElementType::uint64, "uint64", 8, false},
    ElementTypeInfo{ElementType::float16, "half", 2, true},     ElementTypeInfo{ElementType::float32, "float", 4, true},
    ElementTypeInfo{ElementType::float64, "double", 8, true},   ElementTypeInfo{ElementType::bfloat16, "bfloat16", 2, true},
};
constexpr std::array<std::string_view, 5> kOps{"sum", "prod", "max", "min", "avg"};
}  // namespace

const ElementTypeInfo& info(ElementType t) { return kTypes.at(static_cast<size_t>(t)); }

ElementType element_type_named(std::string_view name) {
  std::string known;
  for (const auto& t : kTypes) {
    if (t.name == name) return t.id;
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  }
  throw BadInput("unknown NCCL data type \"" + std::string(name) + "\" (known: " + known + ")");
}

std::span<const ElementTypeInfo> element_types() { return kTypes; }

std::span<const std::string_view> reduce_op_names() { return kOps; }

std::string_view name(ReduceOp op) { return kOps.at(static_cast<size_t>(op)); }

ReduceOp reduce_op_named(std::string_view name) {
  for (size_t i = 0; i < kOps.size(); ++i)
    if (kOps[i] == name) return static_cast<ReduceOp>(i);
  throw BadInput("unknown NCCL reduction \"" + std::string(name) + "\" (known: sum, prod, max, min, avg)");
}

}  // namespace spiral::nccl
