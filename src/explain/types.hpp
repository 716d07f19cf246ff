// Element types for `bankcheck explain`: C scalars, CUDA vector types (with CUDA's sizes and
// alignments), anonymous structs laid out by C rules, and arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankcheck::explain::detail {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Field {
  std::string name;
  std::uint64_t offset = 0;
  TypePtr type;
};

struct Type {
  enum class Kind { Scalar, Record, Array };
  Kind kind = Kind::Scalar;
  std::string name;  // spelled type: "float", "float3", "struct { ... }", "float[32][33]"
  std::uint64_t size = 0;
  std::uint64_t align = 1;
  bool is_integer = false;    // Scalar: an integer type (casts in expressions)
  bool is_signed = false;     // Scalar integer: signed
  std::vector<Field> fields;  // Record (structs and vector types), in declaration order
  TypePtr elem;               // Array: element type
  std::uint64_t count = 0;    // Array: number of elements, 0 = unbounded
  std::string base_name;      // Array: name of the innermost non-array element type

  const Field* field(std::string_view member) const;
  // Number of array levels directly on this type (float[32][33] -> 2).
  int rank() const;
};

// A scalar or CUDA vector type by its canonical name ("float", "unsigned int", "float3",
// "long long", "__half2", ...); nullptr if there is none.
TypePtr find_builtin(std::string_view name);

// The words C builds integer type names from: signed unsigned char short int long.
bool is_int_keyword(std::string_view word);

// The canonical name of an integer type spelled with those words ("unsigned" -> "unsigned int",
// "long long int" -> "long long"), or "" if the combination is invalid ("short char").
std::string canonical_int_name(const std::vector<std::string>& words);

// A struct with C layout: each member at the next multiple of its alignment, the size rounded
// up to the largest member alignment. `members` must be non-empty.
TypePtr make_struct(const std::vector<std::pair<std::string, TypePtr>>& members);

// `count` elements of `elem` (count 0: unbounded, size 0).
TypePtr make_array(TypePtr elem, std::uint64_t count);

}  // namespace bankcheck::explain::detail
